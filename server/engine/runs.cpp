// engine/runs.cpp: Engine::runs and Engine::export_run: the workspace's stored optimizer runs, as
// `hone runs` lists them and `hone export` writes them.
#include "engine/engine_impl.h"
#include "optimize/run_export.h"
#include "store/run_store.h"

namespace hone {

std::vector<protocol::RunListing> Engine::runs(int limit) const {
  const std::filesystem::path path = store_path();
  if (!std::filesystem::exists(path)) return {};
  std::vector<protocol::RunListing> out;
  try {
    RunStore store(path);
    for (const RunRecord& r : store.runs(limit)) out.push_back(run_listing(r));
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Environment, e.what());
  }
  return out;
}

std::vector<nlohmann::json> Engine::export_run(std::int64_t run_id) const {
  const std::filesystem::path path = store_path();
  if (!std::filesystem::exists(path))
    throw EngineError(EngineError::Kind::Usage,
                      "no store in " + impl_->workspace.string() + " (" + path.string() + " does not exist)");
  try {
    RunStore store(path);
    if (!store.run(run_id))
      throw EngineError(EngineError::Kind::Usage, "no run " + std::to_string(run_id) + " in " + path.string());
    return hone::export_run(store, run_id);
  } catch (const EngineError&) {
    throw;
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Environment, e.what());
  }
}

}  // namespace hone
