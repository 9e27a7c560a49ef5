// engine/specs.cpp: Engine::gpu_specs: the GPU spec table's rows for `hone specs`, this machine's
// GPU as nvidia-smi names it, and the ceilings measured on it (cached, or measured now).
#include "engine/engine_impl.h"
#include "profile/ceilings.h"
#include "profile/gpu_specs.h"
#include "support/subprocess.h"

namespace hone {
namespace {

// The first GPU's name as nvidia-smi reports it; empty without nvidia-smi or a GPU.
std::string local_gpu_name() {
  auto smi = find_program("nvidia-smi");
  if (!smi) return "";
  ProcessSpec spec;
  spec.argv = {smi->string(), "--query-gpu=name", "--format=csv,noheader", "--id=0"};
  spec.timeout = std::chrono::seconds(20);
  ProcessResult r = run_process(spec);
  if (!r.ok()) return "";
  std::string name = r.out.substr(0, r.out.find('\n'));
  while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
  return name;
}

}  // namespace

Engine::Specs Engine::gpu_specs(const SpecsRequest& request, const CallContext& ctx) {
  Specs out;
  out.local_gpu = local_gpu_name();
  if (request.measure) {
    if (!impl_->gpu_visible(ctx))
      throw EngineError(EngineError::Kind::NoGpu,
                        "there is no GPU here to measure (" +
                            (out.local_gpu.empty() ? std::string("nvidia-smi sees none") : "nvidia-smi sees " + out.local_gpu) +
                            ", the eval worker none): --measure times this machine's own GPU; `hone specs --gpu NAME` "
                            "shows a GPU's published peak rates from the table without measuring");
    protocol::MeasuredCeilings measured = ceilings(true, ctx);
    if (out.local_gpu.empty()) out.local_gpu = measured.device_name;
  }
  const std::optional<protocol::GpuSpec> local = out.local_gpu.empty() ? std::nullopt : profile::find_gpu_spec(out.local_gpu);
  out.local_unknown = !out.local_gpu.empty() && !local && request.gpu.empty();
  std::vector<protocol::GpuSpec> rows;
  if (!request.gpu.empty()) {
    auto spec = profile::find_gpu_spec(request.gpu);
    if (!spec) {
      std::string known;
      for (const auto& r : profile::all_gpu_specs()) known += " " + r.key;
      throw EngineError(EngineError::Kind::Usage, "no GPU matches '" + request.gpu + "'; known:" + known);
    }
    rows.push_back(*spec);
  } else if (!request.all && local) {
    rows.push_back(*local);
  } else {
    rows.assign(profile::all_gpu_specs().begin(), profile::all_gpu_specs().end());
  }
  for (protocol::GpuSpec& spec : rows) {
    SpecRow row;
    row.local = local && local->key == spec.key;
    if (row.local) row.measured = profile::load_cached_ceilings(out.local_gpu);
    row.spec = std::move(spec);
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace hone
