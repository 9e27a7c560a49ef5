// engine/task_init.cpp: the task's __init__ arguments a kernel sees (issue 15). A kernel whose text
// names `hone::task::` gets every int/float/bool of get_init_inputs() as a constexpr named after
// its Model.__init__ parameter; the worker's `task_init` says what they are (cached per task hash).
#include "engine/engine_impl.h"
#include "support/hash.h"
#include "support/paths.h"

namespace hone {

using nlohmann::json;

std::vector<toolchain::TaskConstant> Engine::Impl::task_constants(Engine& engine, const KernelSource& kernel,
                                                                  const std::string& text,
                                                                  const std::optional<std::filesystem::path>& task,
                                                                  const CallContext& ctx) {
  if (text.find("hone::task::") == std::string::npos) return {};
  std::filesystem::path path;
  try {
    path = task ? absolute(*task) : engine.find_task(kernel);
  } catch (const EngineError&) {
    return {};  // no task: the compiler names the undeclared hone::task:: constant
  }
  std::string task_text;
  try {
    task_text = read_file(path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, "task: " + std::string(e.what()));
  }
  const std::string hash = sha256_hex(task_text);
  {
    std::lock_guard lock(mutex_);
    if (auto it = task_constants_.find(hash); it != task_constants_.end()) return it->second;
  }
  const std::string staged = stage_task(path, hash).string();
  json result;
  try {
    result = call_worker(default_device(ctx), "task_init", json{{"task", staged}}, options.check_timeout, ctx);
  } catch (const EngineError& e) {
    throw EngineError(e.kind(), unstage(e.what(), staged, path.string()), unstage(e.detail(), staged, path.string()));
  }
  std::vector<toolchain::TaskConstant> constants;
  for (const json& a : result.value("init", json::array())) {
    if (!a.contains("cpp") || !a.contains("value")) continue;
    const std::string kind = a.value("kind", "");
    const json& v = a["value"];
    std::string literal = v.is_string() ? v.get<std::string>() : v.is_boolean() ? (v.get<bool>() ? "true" : "false") : v.dump();
    constants.push_back({a.value("name", ""), kind, literal});
  }
  std::lock_guard lock(mutex_);
  task_constants_[hash] = constants;
  return constants;
}

}  // namespace hone
