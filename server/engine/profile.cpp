// engine/profile.cpp: Engine::profile and Engine::ceilings: a check (whose build, staged task and
// GPU the profile reuses), the GPU's ceilings (cached per GPU), the worker's `profile` request
// (kernel records and counters of one candidate call and one reference call), and the report
// (roofline, suggestions, SVG) in the verdict's `profile`.
#include <cstdlib>

#include "engine/engine_impl.h"
#include "engine/last_profile.h"
#include "support/hash.h"
#include "profile/ceilings.h"
#include "profile/report.h"
#include "support/paths.h"

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

std::filesystem::path default_plot(const std::filesystem::path& workspace, const std::filesystem::path& kernel,
                                   const std::string& kernel_hash) {
  return workspace / ".hone" / "profiles" / (kernel.stem().string() + "-" + kernel_hash.substr(0, 8) + ".roofline.svg");
}

// The worker's `profile` request for a prepared check's build, staged task and GPU.
json profile_params(const PreparedCheck& c, const ProfileRequest& request) {
  json kernel{{"library", c.build.compile.library},
              {"form", c.build.form},
              {"language", c.build.language},
              {"own_kernels", c.build.own_kernels}};
  if (!c.build.op_namespace.empty()) kernel["namespace"] = c.build.op_namespace;
  for (const auto& [key, value] : c.kernel_extra.items()) kernel[key] = value;  // a KernelBench answer's modules
  return json{{"task", c.staged_task.string()},   {"device", c.device.name()},    {"kernel", kernel},
              {"metrics", request.metrics},       {"reference", request.baseline}, {"cupti_library", cupti_library().string()}};
}

// The report of the worker's profile result: counters and roofline against the ceilings,
// suggestions located in the kernel's source, the SVG plot when a point could be placed.
profile::ProfileOutput profile_report(const json& result, const PreparedCheck& c, const protocol::Verdict& verdict,
                                      const std::optional<protocol::MeasuredCeilings>& measured, Engine::Impl& impl,
                                      const CallContext& ctx) {
  profile::ProfileInputs in;
  in.worker_result = result;
  in.own_kernels = c.build.own_kernels;
  in.compile = &c.build.compile;
  in.kernel_file = c.kernel.path.string();
  in.measured = measured;
  in.compulsory_bytes = result.value("io_bytes", 0.0);
  in.task_dtype = result.value("dtype", std::string());
  in.sandbox_mode = verdict.sandbox.mode;
  try {
    in.device = result.contains("device") ? result["device"].get<protocol::DeviceFacts>() : impl.gpu_facts(c.device, ctx);
    return profile::build_profile_report(in);
  } catch (const EngineError&) {
    throw;
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Internal, std::string("profile report: ") + e.what(), result.dump().substr(0, 4000));
  }
}

}  // namespace

protocol::MeasuredCeilings Engine::ceilings(bool remeasure, const CallContext& ctx) {
  const Device gpu = impl_->gpu();
  const std::string name = impl_->gpu_facts(gpu, ctx).name;
  if (!remeasure)
    if (auto cached = profile::load_cached_ceilings(name)) return *cached;
  if (ctx.progress) ctx.progress({"profile", "measuring the ceilings of " + name + " (once per GPU)"});
  json measured = impl_->call_worker(gpu, "measure_ceilings", {{"device", gpu.name()}}, kCeilingsDeadline, ctx);
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
  CheckRequest check_request;
  check_request.kernel = request.kernel;
  check_request.task = request.task;
  check_request.device = DeviceKind::Cuda;
  check_request.baselines = request.baseline;
  const PreparedCheck prepared = prepare_check(*this, impl, check_request, ctx);
  ProfileResult out;
  out.verdict = judge_check(*this, impl, prepared, check_request, ctx);
  const protocol::Status status = out.verdict.status;
  if (status != protocol::Status::Correct && status != protocol::Status::Incorrect) {
    out.skipped = "not profiled: the check ended with " + out.verdict.reason.value_or("a failure");
    return out;
  }

  std::optional<protocol::MeasuredCeilings> measured;
  try {
    measured = ceilings(false, ctx);
  } catch (const EngineError& e) {
    if (e.kind() == EngineError::Kind::Cancelled) throw;
    if (ctx.progress) ctx.progress({"profile", std::string("ceilings not measured (") + e.what() + "); using the spec table"});
  }
  if (ctx.progress) ctx.progress({"profile", "tracing and counting (" + request.metrics + " metrics)"});
  json result = impl.call_worker(prepared.device, "profile", profile_params(prepared, request),
                                 request.deadline.value_or(kProfileDeadline), ctx);
  profile::ProfileOutput report = profile_report(result, prepared, out.verdict, measured, impl, ctx);
  if (!report.svg.empty()) {
    std::filesystem::path plot = request.plot ? impl.absolute(*request.plot)
                                              : default_plot(impl.workspace, prepared.kernel.path, prepared.build.kernel_hash);
    try {
      std::filesystem::create_directories(plot.parent_path());
      write_file_atomic(plot, report.svg);
      out.plot = plot;
      report.report.plot = plot.string();
    } catch (const std::exception& e) {
      report.report.notes.push_back(std::string("the roofline plot could not be written: ") + e.what());
    }
  }
  if (report.report.sass && prepared.build.language == "cuda") {
    try {
      save_last_sass_profile(impl.workspace, {prepared.build.key, prepared.kernel.path.string(),
                                              out.verdict.created_at.value_or(""), *report.report.sass});
    } catch (const std::exception& e) {
      report.report.notes.push_back(std::string("the SASS counters could not be kept for the SASS view: ") + e.what());
    }
  }
  out.verdict.profile = std::move(report.report);
  return out;
}

}  // namespace hone
