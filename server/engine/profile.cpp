// engine/profile.cpp: Engine::profile and Engine::ceilings: a check, the GPU's ceilings (cached
// per GPU), the worker's `profile` request (kernel records and counters of one candidate call and
// one reference call), and the report (roofline, suggestions, SVG) in the verdict's `profile`.
#include <cstdlib>

#include "engine/engine_impl.h"
#include "profile/ceilings.h"
#include "profile/report.h"
#include "support/hash.h"
#include "support/paths.h"
#include "toolchain/kernel_source.h"

namespace hone {
namespace {

using nlohmann::json;

constexpr std::chrono::seconds kProfileDeadline{600};
constexpr std::chrono::seconds kCeilingsDeadline{300};

// libhone_cupti.so: $HONE_CUPTI_LIBRARY, else the share folder's lib/ (where the build puts it).
std::filesystem::path cupti_library() {
  if (const char* env = std::getenv("HONE_CUPTI_LIBRARY"); env && *env) return env;
  return share_dir() / "lib" / "libhone_cupti.so";
}

json hello_device(const json& hello, int index) {
  for (const json& d : hello.value("devices", json::array()))
    if (d.value("index", -1) == index) return d;
  throw EngineError(EngineError::Kind::Environment, "the eval worker sees no GPU " + std::to_string(index));
}

std::filesystem::path default_plot(const std::filesystem::path& workspace, const std::filesystem::path& kernel,
                                   const std::string& kernel_hash) {
  return workspace / ".hone" / "profiles" / (kernel.stem().string() + "-" + kernel_hash.substr(0, 8) + ".roofline.svg");
}

}  // namespace

protocol::MeasuredCeilings Engine::ceilings(bool remeasure, const CallContext& ctx) {
  json facts = hello_device(impl_->hello(DeviceKind::Cuda, ctx), impl_->options.gpu_index);
  const std::string name = facts.value("name", std::string("unknown GPU"));
  if (!remeasure)
    if (auto cached = profile::load_cached_ceilings(name)) return *cached;
  if (ctx.progress) ctx.progress({"profile", "measuring the ceilings of " + name + " (once per GPU)"});
  json params{{"device", impl_->device_string(DeviceKind::Cuda)}};
  json measured = impl_->call_worker(DeviceKind::Cuda, "measure_ceilings", params, kCeilingsDeadline, ctx);
  try {
    auto m = measured.get<protocol::MeasuredCeilings>();
    profile::store_cached_ceilings(m);
    return m;
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Internal, std::string("measure_ceilings: ") + e.what(), measured.dump());
  }
}

ProfileResult Engine::profile(const ProfileRequest& request, const CallContext& ctx) {
  Impl& impl = *impl_;
  if (request.metrics != "default" && request.metrics != "full")
    throw EngineError(EngineError::Kind::Usage, "--metrics must be default or full, not " + request.metrics);
  KernelSource kernel{impl.absolute(request.kernel.path), request.kernel.contents};
  if (resolve_device(kernel, DeviceKind::Cuda, ctx) != DeviceKind::Cuda)
    throw EngineError(EngineError::Kind::Usage,
                      kernel.path.string() + " runs on the CPU: hone profile reads GPU hardware counters (profile a .cu kernel)");

  ProfileResult out;
  CheckRequest check_request;
  check_request.kernel = kernel;
  check_request.task = request.task;
  check_request.device = DeviceKind::Cuda;
  check_request.baselines = request.baseline;
  out.verdict = check(check_request, ctx);
  const protocol::Status status = out.verdict.status;
  if (status != protocol::Status::Correct && status != protocol::Status::Incorrect) {
    out.skipped = "not profiled: the check ended with " + out.verdict.reason.value_or("a failure");
    return out;
  }

  std::optional<profile::MeasuredCeilings> measured;
  try {
    measured = ceilings(false, ctx);
  } catch (const EngineError& e) {
    if (e.kind() == EngineError::Kind::Cancelled) throw;
    if (ctx.progress) ctx.progress({"profile", std::string("ceilings not measured (") + e.what() + "); using the spec table"});
  }

  protocol::BuildReport built = build(BuildRequest{kernel, {}, true}, ctx);  // cached by the check above
  const std::filesystem::path task = request.task ? impl.absolute(*request.task) : find_task(kernel);
  const std::string task_hash = sha256_hex(read_file(task));
  json params{{"task", impl.stage_task(task, task_hash).string()},
              {"device", impl.device_string(DeviceKind::Cuda)},
              {"kernel", {{"library", built.compile.library}, {"form", built.form}, {"language", built.language},
                          {"own_kernels", built.own_kernels}}},
              {"metrics", request.metrics},
              {"reference", request.baseline},
              {"cupti_library", cupti_library().string()}};
  if (!built.op_namespace.empty()) params["kernel"]["namespace"] = built.op_namespace;
  if (ctx.progress) ctx.progress({"profile", "tracing and counting (" + request.metrics + " metrics)"});
  json result = impl.call_worker(DeviceKind::Cuda, "profile", params, request.deadline.value_or(kProfileDeadline), ctx);

  profile::ProfileInputs in;
  in.worker_result = result;
  in.own_kernels = built.own_kernels;
  in.compile = &built.compile;
  in.kernel_file = kernel.path.string();
  in.measured = measured;
  in.compulsory_bytes = result.value("io_bytes", 0.0);
  in.task_dtype = result.value("dtype", std::string());
  in.sandbox_mode = out.verdict.sandbox.mode;
  profile::ProfileOutput report;
  try {
    const json device = result.contains("device") ? result["device"] : hello_device(impl.hello(DeviceKind::Cuda, ctx), impl.options.gpu_index);
    in.device = device.get<protocol::DeviceFacts>();
    report = profile::build_profile_report(in);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Internal, std::string("profile report: ") + e.what(), result.dump().substr(0, 4000));
  }
  if (!report.svg.empty()) {
    std::filesystem::path plot = request.plot ? impl.absolute(*request.plot) : default_plot(impl.workspace, kernel.path, built.kernel_hash);
    try {
      std::filesystem::create_directories(plot.parent_path());
      write_file_atomic(plot, report.svg);
      out.plot = plot;
      report.report.plot = plot.string();
    } catch (const std::exception& e) {
      report.report.notes.push_back(std::string("the roofline plot could not be written: ") + e.what());
    }
  }
  out.verdict.profile = std::move(report.report);
  return out;
}

}  // namespace hone
