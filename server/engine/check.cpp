// engine/check.cpp: Engine::check, the whole pipeline for one kernel: pair it with its task,
// pick the device, build (while the device's worker starts), verify and time on the worker,
// then the eval client's stages (floor, baselines, re-check) -> one Verdict.
#include <chrono>
#include <ctime>
#include <future>

#include "engine/engine_impl.h"
#include "support/hash.h"
#include "toolchain/kernel_source.h"

namespace hone {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// "file:line:col: message" of the first error, for the verdict's reason.
std::string first_error(const protocol::CompileReport& report) {
  for (const auto& d : report.diagnostics) {
    if (d.severity != protocol::Severity::Error) continue;
    std::string where = d.file;
    if (d.line > 0) where += ":" + std::to_string(d.line);
    if (d.column > 0) where += ":" + std::to_string(d.column);
    return where + ": " + d.message;
  }
  return "the build failed without a diagnostic";
}

void check_stop(const CallContext& ctx) {
  if (ctx.stop.stop_requested()) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
}

}  // namespace

protocol::Verdict Engine::check(const CheckRequest& request, const CallContext& ctx) {
  Impl& impl = *impl_;
  const auto t0 = Clock::now();

  KernelSource kernel{impl.absolute(request.kernel.path), request.kernel.contents};
  if (!kernel.contents) {
    try {
      kernel.contents = read_file(kernel.path);
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Usage, std::string("kernel: ") + e.what());
    }
  }
  const std::filesystem::path task = request.task ? impl.absolute(*request.task) : find_task(kernel);
  std::string task_text;
  try {
    task_text = read_file(task);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, std::string("task: ") + e.what());
  }
  const std::string task_hash = sha256_hex(task_text);

  // The device (and its worker's start-up) is settled while the kernel compiles.
  std::future<DeviceKind> device_future = std::async(std::launch::async, [&] {
    DeviceKind kind = resolve_device(kernel, request.device, ctx);
    impl.hello(kind, ctx);
    return kind;
  });
  protocol::BuildReport built;
  try {
    built = build(BuildRequest{kernel, request.extra_flags, true}, ctx);
  } catch (...) {
    device_future.wait();
    throw;
  }
  const DeviceKind device = device_future.get();
  check_stop(ctx);

  protocol::Verdict v;
  v.created_at = utc_now();
  v.kernel = {kernel.path.string(), built.kernel_hash, built.form.empty() ? "unknown" : built.form, built.language};
  v.task = {task.string(), task_hash, task.stem().string()};
  v.compile = built.compile;
  v.seconds["build"] = built.compile.seconds;
  const sandbox::SandboxReport box = impl.sandbox().report();
  v.sandbox.mode = std::string(sandbox::to_string(box.mode));
  v.sandbox.explicitly_disabled = box.explicitly_disabled;
  if (!box.warning.empty()) v.sandbox.warning = box.warning;
  if (box.explicitly_disabled)
    v.flags.push_back({"no_sandbox", "the candidate ran unconfined (sandbox disabled by --no-sandbox or HONE_SANDBOX=none)"});
  else if (!box.warning.empty())
    v.flags.push_back({"weak_sandbox", box.warning});

  eval::DeviceContext dc = impl.device_context(device, ctx);
  v.device.kind = device == DeviceKind::Cuda ? "cuda" : "cpu";
  v.device.name = dc.name;
  if (device == DeviceKind::Cuda) {
    v.device.index = impl.options.gpu_index;
    if (!built.compile.arch.empty()) v.device.arch = built.compile.arch;
  }
  protocol::ToolchainVersions versions = impl.toolchain_versions(built.language);
  versions.torch = dc.torch_version;
  versions.python = impl.hello(device, ctx).value("python", std::string());
  v.toolchain = versions;

  if (!built.ok()) {
    v.status = protocol::Status::CompileError;
    v.reason = first_error(built.compile);
    v.seconds["total"] = since(t0);
    return v;
  }

  const std::filesystem::path staged = impl.stage_task(task, task_hash);
  eval::EvalRequest er;
  er.task = staged;
  er.task_hash = task_hash;
  er.device = impl.device_string(device);
  er.kernel = {built.compile.library, built.form, built.op_namespace, built.own_kernels};
  er.seeds = request.seeds.value_or(impl.options.seeds);
  er.atol = request.atol;
  er.rtol = request.rtol;
  er.timing = request.timing;
  er.baselines = request.timing && request.baselines;
  er.compile_baseline = request.compile_baseline;
  er.deadline = request.deadline.value_or(impl.options.check_timeout);

  eval::EvalFacts facts;
  try {
    facts = eval::run_check(impl.slot(device), impl.baselines, er, dc, v, ctx.stop, impl.progress_sink(ctx));
  } catch (const eval::TaskError& e) {
    throw EngineError(EngineError::Kind::Task, unstage(e.what(), staged.string(), task.string()),
                      unstage(e.traceback(), staged.string(), task.string()));
  } catch (...) {
    rethrow_as_engine_error();
  }
  if (v.reason) v.reason = unstage(*v.reason, staged.string(), task.string());
  if (v.evidence)
    for (auto& line : v.evidence->stderr_tail) line = unstage(line, staged.string(), task.string());

  if (facts.kernel_mismatch) {
    // Point at forward in the editor, and show what it should be.
    protocol::Diagnostic d;
    d.file = kernel.path.string();
    d.severity = protocol::Severity::Error;
    d.source = protocol::DiagnosticSource::Hone;
    d.message = v.reason.value_or("forward does not fit the task");
    try {
      auto facts_src = toolchain::analyze_kernel_source(kernel.path, *kernel.contents);
      if (facts_src.forward) d.line = facts_src.forward->line;
    } catch (const std::exception&) {
      d.line = 0;  // no forward line: the diagnostic covers the file
    }
    v.compile.diagnostics.push_back(d);
    if (!v.signature) {
      try {
        v.signature = task_info(task, device, ctx).signature;
      } catch (const EngineError& e) {
        if (e.kind() == EngineError::Kind::Cancelled) throw;
      }
    }
  }
  v.seconds["total"] = since(t0);
  return v;
}

}  // namespace hone
