// engine/check.cpp: Engine::check as a straight line: prepare (pair the kernel with its task,
// build it while the device's worker starts, stage the task), judge (the eval client's check:
// the worker's trials and timing, the floor, baselines, re-check), then one verdict with what the
// kernel, task and device are. Each step runs once; Engine::profile reuses the prepared check.
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

// "k.cu built for sm_90 (2 warnings); " before why it cannot be checked here.
std::string built_text(const protocol::BuildReport& b) {
  std::string text = b.kernel + " built for " + b.compile.arch;
  if (const auto w = b.compile.count(protocol::Severity::Warning)) text += " (" + std::to_string(w) + " warning" + (w == 1 ? "" : "s") + ")";
  return text + "; checking it needs a GPU: ";
}

// The build's warnings as "file:line:col: warning: message" lines.
std::string warnings_text(const protocol::CompileReport& report) {
  std::string out;
  for (const auto& d : report.diagnostics) {
    if (d.severity != protocol::Severity::Warning) continue;
    std::string where = d.file;
    if (d.line > 0) where += ":" + std::to_string(d.line);
    if (d.column > 0) where += ":" + std::to_string(d.column);
    out += where + ": warning: " + d.message + "\n";
  }
  return out;
}

std::string read_or_usage(const std::filesystem::path& path, const char* what) {
  try {
    return read_file(path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, std::string(what) + ": " + e.what());
  }
}

// What the judge does not know: the kernel, the task, the build, the device, the toolchain and
// the sandbox the candidate ran in.
void describe_check(protocol::Verdict& v, const PreparedCheck& c, const JudgedOn& on, Engine::Impl& impl,
                    const CallContext& ctx) {
  v.created_at = utc_now();
  v.kernel = {c.kernel.path.string(), c.build.kernel_hash, c.build.form, c.build.language};
  v.task = {c.task.string(), c.task_hash, c.task.stem().string()};
  v.compile = c.build.compile;
  v.seconds["build"] = c.build.compile.seconds;
  const sandbox::SandboxReport box = impl.sandbox().report();
  v.sandbox.mode = std::string(sandbox::to_string(box.mode));
  v.sandbox.explicitly_disabled = box.explicitly_disabled;
  if (!box.warning.empty()) v.sandbox.warning = box.warning;
  // The sandbox's flag comes first: it qualifies all the others.
  if (box.explicitly_disabled)
    v.flags.insert(v.flags.begin(), {"no_sandbox", "the candidate ran unconfined (sandbox disabled by --no-sandbox or HONE_SANDBOX=none)"});
  else if (!box.warning.empty())
    v.flags.insert(v.flags.begin(), {"weak_sandbox", box.warning});
  v.device.kind = std::string(on.device.kind_name());
  v.device.name = on.context.name;
  v.device.index = on.index;
  if (!on.uuid.empty()) v.device.uuid = on.uuid;
  if (on.device.is_cuda() && !c.build.compile.arch.empty()) v.device.arch = c.build.compile.arch;
  for (const auto& why : on.requeued) v.flags.push_back({"requeued", why});
  protocol::ToolchainVersions versions = impl.toolchain_versions(c.build.language);
  versions.torch = on.context.torch_version;
  versions.python = impl.hello(on.device, ctx).value("python", std::string());
  v.toolchain = versions;
}

// A library the worker refused (signature or ABI): point at forward in the editor, and show the
// signature it should have.
void explain_mismatch(protocol::Verdict& v, const PreparedCheck& c, Engine& engine, const CallContext& ctx) {
  protocol::Diagnostic d;
  d.file = c.kernel.path.string();
  d.severity = protocol::Severity::Error;
  d.source = protocol::DiagnosticSource::Hone;
  d.message = v.reason.value_or("forward does not fit the task");
  try {
    auto facts = toolchain::analyze_kernel_source(c.kernel.path, *c.kernel.contents);
    if (facts.forward) d.line = facts.forward->line;
  } catch (const std::exception&) {
    d.line = 0;  // no forward line: the diagnostic covers the file
  }
  v.compile.diagnostics.push_back(d);
  if (v.signature) return;
  try {
    v.signature = engine.task_info(c.task, c.device.kind(), ctx).signature;
  } catch (const EngineError& e) {
    if (e.kind() == EngineError::Kind::Cancelled) throw;
  }
}

eval::EvalRequest eval_request(const PreparedCheck& c, const CheckRequest& request, const EngineOptions& options) {
  eval::EvalRequest er;
  er.task = c.staged_task;
  er.task_hash = c.task_hash;
  er.device = c.device;
  er.kernel = {c.build.compile.library, c.build.form, c.build.op_namespace, c.build.own_kernels, c.kernel_extra,
               c.build.compile.tamper_signs};
  er.seeds = request.seeds.value_or(options.seeds);
  er.atol = request.atol;
  er.rtol = request.rtol;
  er.timing = request.timing;
  er.baselines = request.timing && request.baselines;
  er.compile_baseline = request.compile_baseline;
  er.remeasure_noisy_baselines = request.remeasure_noisy_baselines;
  er.deadline = request.deadline.value_or(options.check_timeout);
  return er;
}

}  // namespace

PreparedCheck prepare_check(Engine& engine, Engine::Impl& impl, const CheckRequest& request, const CallContext& ctx) {
  const auto t0 = Clock::now();
  if (is_answer_file(request.kernel.path)) {
    PreparedCheck answer = prepare_answer_check(engine, impl, request, ctx);
    answer.prepare_seconds = since(t0);
    return answer;
  }
  PreparedCheck c;
  c.kernel = {impl.absolute(request.kernel.path), request.kernel.contents};
  if (!c.kernel.contents) c.kernel.contents = read_or_usage(c.kernel.path, "kernel");
  c.task = request.task ? impl.absolute(*request.task) : engine.find_task(c.kernel);
  const std::string task_text = read_or_usage(c.task, "task");
  c.task_hash = sha256_hex(task_text);

  // The device (and its worker's start-up) is settled while the kernel compiles.
  std::future<Device> device = std::async(std::launch::async, [&] {
    Device d = engine.resolve_device(c.kernel, request.device, ctx);
    impl.hello(d, ctx);
    return d;
  });
  try {
    c.build = engine.build(BuildRequest{c.kernel, request.extra_flags, true, true, c.task}, ctx);
  } catch (...) {
    device.wait();
    throw;
  }
  try {
    c.device = device.get();
  } catch (const EngineError& e) {
    // No GPU here: the build's outcome is still news. A compile error is the kernel's verdict;
    // a good build is said before the check is refused.
    if (e.kind() != EngineError::Kind::NoGpu) throw;
    if (c.build.ok()) throw EngineError(EngineError::Kind::NoGpu, built_text(c.build) + e.what(), warnings_text(c.build.compile));
    c.device = impl.gpu();
    c.no_gpu = e.what();
    c.device_context.name = "no GPU visible";
  }
  if (ctx.stop.stop_requested()) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
  if (c.no_gpu.empty()) c.device_context = impl.device_context(c.device, ctx);
  if (c.build.ok()) c.staged_task = impl.stage_task(c.task, c.task_hash);
  c.prepare_seconds = since(t0);
  return c;
}

protocol::Verdict judge_check(Engine& engine, Engine::Impl& impl, const PreparedCheck& c, const CheckRequest& request,
                              const CallContext& ctx) {
  protocol::Verdict v;
  bool kernel_mismatch = false;
  JudgedOn on{c.device, c.device_context, c.device.is_cuda() ? std::optional<int>(c.device.index()) : std::nullopt, {}, {}};
  if (!c.build.ok()) {
    v.status = protocol::Status::CompileError;
    v.reason = first_error(c.build.compile);
  } else if (c.answer_failure) {
    // The answer could not be imported (it raised, or needs Triton where there is none).
    v.status = protocol::Status::RuntimeError;
    v.reason = *c.answer_failure;
    if (!c.answer_traceback.empty()) {
      v.evidence.emplace();
      v.evidence->traceback = c.answer_traceback;
    }
  } else {
    const std::string staged = c.staged_task.string(), task = c.task.string();
    eval::DevicePool& pool = impl.pool(c.device, ctx);
    try {
      // A member whose judge fails is retired and the check goes to the next free one; the last
      // member is never retired, so with one GPU the verdict is what that GPU gave.
      for (;;) {
        eval::DevicePool::Lease lease = pool.acquire(request.gpu_kind, ctx.stop);
        const eval::PoolMember& m = lease.member();
        std::optional<std::string> lost;
        try {
          on.context = impl.member_context(m, ctx);
          eval::EvalRequest er = eval_request(c, request, impl.options);
          er.device = m.device;
          eval::EvalResult judged = eval::run_check(*m.slot, impl.baselines, er, on.context, ctx.stop, impl.progress_sink(ctx));
          lost = judged.judge_lost;
          v = std::move(judged.verdict);
          kernel_mismatch = judged.kernel_mismatch;
        } catch (const EngineError& e) {
          if (e.kind() != EngineError::Kind::Environment || pool.live() <= 1) throw;
          lost = std::string("its judge could not start: ") + e.what();
        } catch (const eval::WorkerStartError& e) {
          if (pool.live() <= 1) throw;
          lost = std::string("its judge could not start: ") + e.what();
        }
        on.device = m.device;
        on.index = m.index;
        on.uuid = m.uuid;
        if (!lost) break;
        const std::string why = "GPU " + (m.index ? std::to_string(*m.index) + " " : std::string()) + "(" + m.kind +
                                (m.uuid.empty() ? "" : ", " + m.uuid) + ") left the pool: " + *lost;
        if (!pool.retire(m.ordinal, why)) {
          if (v.evidence || v.reason) break;  // the last member: its verdict stands, as with one GPU
          throw EngineError(EngineError::Kind::Environment, why);
        }
        on.requeued.push_back(why + "; the check was re-queued");
        if (ctx.progress) ctx.progress(Progress{"pool", why});
      }
    } catch (const eval::TaskError& e) {
      throw EngineError(EngineError::Kind::Task, unstage(e.what(), staged, task), unstage(e.traceback(), staged, task));
    } catch (const eval::PoolExhausted& e) {
      throw EngineError(EngineError::Kind::Environment, e.what());
    } catch (...) {
      rethrow_as_engine_error();
    }
    if (v.reason) v.reason = unstage(*v.reason, staged, task);
    if (v.evidence)
      for (auto& line : v.evidence->stderr_tail) line = unstage(line, staged, task);
  }
  describe_check(v, c, on, impl, ctx);
  if (!c.no_gpu.empty())
    v.flags.push_back({"no_gpu", "once it builds, checking it needs a GPU: " + c.no_gpu});
  if (c.answer) {
    protocol::AnswerFacts facts = v.answer.value_or(protocol::AnswerFacts{});
    facts.extensions = c.answer->extensions;
    facts.triton = c.answer->triton;
    v.answer = facts;
  }
  if (kernel_mismatch) explain_mismatch(v, c, engine, ctx);
  return v;
}

protocol::Verdict Engine::check(const CheckRequest& request, const CallContext& ctx) {
  if (impl_->options.executor == Executor::Slurm && !request.local_only) {
    ManyResult r = check_many({request}, ctx);
    if (r.errors[0]) throw *r.errors[0];
    return std::move(*r.verdicts[0]);
  }
  const auto t0 = Clock::now();
  const PreparedCheck prepared = prepare_check(*this, *impl_, request, ctx);
  protocol::Verdict verdict = judge_check(*this, *impl_, prepared, request, ctx);
  verdict.seconds["total"] = since(t0);
  return verdict;
}

}  // namespace hone
