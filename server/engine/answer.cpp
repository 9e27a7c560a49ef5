// engine/answer.cpp: a KernelBench answer file (`hone check answer.py --task TASK`, issue 15).
// The answer is code: it is never imported here nor in the judge. A confined python process
// (hone_worker.runner.inline_record) imports it with load_inline replaced by a recorder; hone's
// toolchain builds each recorded call's sources in the torch form (cached, confined, overlapped
// nvcc, diagnostics at the .py's lines); the judge then has a candidate process import the answer
// with load_inline returning those builds (kernel form "modelnew").
#include <unistd.h>

#include <algorithm>
#include <future>

#include "engine/engine_impl.h"
#include "eval/worker_launch.h"
#include "support/hash.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "toolchain/inline_source.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::chrono::seconds kRecordTimeout{180};

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

struct Recorded {
  std::vector<toolchain::InlineCall> calls;
  bool uses_triton = false;
  std::vector<std::string> triton_kernels;
  std::string error, traceback;
};

// Imports the answer in a confined python process with load_inline recording its arguments.
Recorded record_answer(Engine::Impl& impl, const fs::path& answer, const std::string& text, const CallContext& ctx) {
  const fs::path py = impl.python();
  const fs::path scratch = cache_dir() / "scratch" / std::to_string(::getpid()) /
                           ("record-" + sha256_hex(text).substr(0, 16));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  write_file_atomic(scratch / answer.filename(), text);
  ProcessSpec spec;
  spec.argv = {py.string(), "-m", "hone_worker.runner.inline_record", (scratch / answer.filename()).string()};
  spec.cwd = scratch;
  spec.env = eval::worker_environment(current_environment(), share_dir());
  spec.timeout = kRecordTimeout;
  spec.stop = ctx.stop;
  const sandbox::Sandbox& box = impl.sandbox();
  if (box.mode() != sandbox::SandboxMode::none) {
    std::vector<fs::path> readable = sandbox::python_read_paths(py);
    readable.push_back(share_dir());
    spec = box.wrap(spec, sandbox::run_policy(scratch, readable, false));
  }
  if (ctx.progress) ctx.progress(Progress{"build", "reading the load_inline calls of " + answer.filename().string()});
  ProcessResult r = box.unwrap_result(run_process(spec));
  fs::remove_all(scratch);
  if (r.cancelled) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
  Recorded out;
  json j;
  try {
    j = json::parse(r.out);
  } catch (const std::exception&) {
    out.error = "importing " + answer.string() + " to read its load_inline calls failed (" + r.describe() + ")";
    out.traceback = r.err.size() > 4000 ? r.err.substr(r.err.size() - 4000) : r.err;
    return out;
  }
  for (const json& c : j.value("calls", json::array())) {
    toolchain::InlineCall call;
    call.name = c.value("name", "");
    call.cpp_sources = strings(c, "cpp_sources");
    call.cuda_sources = strings(c, "cuda_sources");
    call.functions = strings(c, "functions");
    call.extra_cflags = strings(c, "extra_cflags");
    call.extra_cuda_cflags = strings(c, "extra_cuda_cflags");
    call.extra_ldflags = strings(c, "extra_ldflags");
    call.extra_include_paths = strings(c, "extra_include_paths");
    out.calls.push_back(std::move(call));
  }
  out.uses_triton = j.value("uses_triton", false);
  out.triton_kernels = strings(j, "triton_kernels");
  if (j.contains("error")) {
    out.error = j.value("error", "");
    out.traceback = j.value("traceback", "");
  } else if (!j.value("has_model_new", false)) {
    out.error = answer.string() + " defines no class ModelNew (a KernelBench answer does)";
  }
  return out;
}

Device answer_device(Engine::Impl& impl, const Recorded& rec, DeviceKind requested, const fs::path& answer,
                     const CallContext& ctx) {
  bool cuda = rec.uses_triton;
  for (const auto& c : rec.calls) cuda = cuda || !c.cuda_sources.empty();
  const DeviceKind kind = requested != DeviceKind::Auto ? requested : impl.options.device;
  if (kind == DeviceKind::Cpu) {
    if (cuda)
      throw EngineError(EngineError::Kind::Usage, answer.string() + " has CUDA sources (or Triton kernels): it runs on the GPU");
    return Device::cpu();
  }
  if (kind == DeviceKind::Cuda || cuda) {
    if (!impl.gpu_visible(ctx)) {
      if (kind == DeviceKind::Cuda || !rec.uses_triton || !rec.calls.empty())
        throw EngineError(EngineError::Kind::Environment,
                          answer.string() + " has CUDA sources, but the eval worker sees no GPU here; check an answer "
                                            "whose load_inline has cpp_sources only on the CPU");
      return Device::cpu();  // a Triton answer without a GPU: its check says Triton cannot run here
    }
    return impl.gpu();
  }
  if (!rec.calls.empty()) return Device::cpu();  // cpp_sources only: a CPU extension
  return impl.default_device(ctx);
}

}  // namespace

bool is_answer_file(const fs::path& path) { return path.extension() == ".py"; }

// The answer's text and its task (an answer is never its own task: --task names it).
static void read_answer_and_task(Engine& engine, Engine::Impl& impl, const CheckRequest& request, PreparedCheck& c) {
  c.kernel = {impl.absolute(request.kernel.path), request.kernel.contents};
  if (!c.kernel.contents) {
    try {
      c.kernel.contents = read_file(c.kernel.path);
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Usage, std::string("kernel: ") + e.what());
    }
  }
  if (request.task) {
    c.task = impl.absolute(*request.task);
  } else {
    c.task = engine.find_task(c.kernel);
    if (fs::weakly_canonical(c.task) == fs::weakly_canonical(c.kernel.path)) {
      const std::string name = c.kernel.path.string();
      if (c.kernel.contents->find("ModelNew") == std::string::npos)  // a task (Model, get_inputs), not an answer
        throw EngineError(EngineError::Kind::Usage,
                          name + " defines no ModelNew: it is a task, not a kernel. Check a kernel against it with "
                                 "`hone check KERNEL --task " + name + "` (`hone task " + name +
                                 "` prints the forward a kernel must have)");
      throw EngineError(EngineError::Kind::Usage, name + " is a KernelBench answer: give its task with --task TASK");
    }
  }
  std::string task_text;
  try {
    task_text = read_file(c.task);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, std::string("task: ") + e.what());
  }
  c.task_hash = sha256_hex(task_text);
}

PreparedCheck prepare_answer_check(Engine& engine, Engine::Impl& impl, const CheckRequest& request,
                                   const CallContext& ctx) {
  PreparedCheck c;
  read_answer_and_task(engine, impl, request, c);
  const std::string& text = *c.kernel.contents;
  const Recorded rec = record_answer(impl, c.kernel.path, text, ctx);
  c.device = answer_device(impl, rec, request.device, c.kernel.path, ctx);
  std::future<void> worker = std::async(std::launch::async, [&] { impl.hello(c.device, ctx); });

  protocol::AnswerFacts facts;
  facts.triton = rec.uses_triton;
  c.build.kernel = c.kernel.path.string();
  c.build.form = "modelnew";
  c.build.language = c.device.is_cuda() ? "cuda" : "cpp";
  c.build.kernel_hash = sha256_hex(text);
  c.build.compile.ok = true;
  c.build.compile.library = c.kernel.path.string();
  c.build.outcome = "built";
  json modules = json::object();
  try {
    if (!rec.error.empty()) {
      c.answer_failure = rec.error;
      c.answer_traceback = rec.traceback;
    }
    // Every call builds at once (the toolchain overlaps and caches them).
    std::vector<std::future<protocol::BuildReport>> builds;
    std::vector<std::string> names;
    for (const auto& call : rec.calls) {
      toolchain::InlineSource s = toolchain::inline_source(c.kernel.path, text, call);
      if (!s.problem.empty()) {
        c.build.compile.ok = false;
        c.build.outcome = "compile_error";
        c.build.compile.diagnostics.push_back({c.kernel.path.string(), 0, 0, protocol::Severity::Error, s.problem,
                                               protocol::DiagnosticSource::Hone});
        break;
      }
      BuildRequest br{KernelSource{s.kernel, s.text}, s.flags, true, true, c.task, s.functions};
      br.extra_flags.insert(br.extra_flags.end(), request.extra_flags.begin(), request.extra_flags.end());
      names.push_back(call.name);
      builds.push_back(std::async(std::launch::async, [&engine, br, &ctx] { return engine.build(br, ctx); }));
    }
    double seconds = 0;
    for (std::size_t i = 0; i < builds.size(); ++i) {
      protocol::BuildReport b = builds[i].get();
      seconds = std::max(seconds, b.compile.seconds);
      if (!b.ok() && c.build.compile.ok) {
        c.build.compile = b.compile;
        c.build.outcome = b.outcome;
        c.build.compile.ok = false;
        for (auto& d : c.build.compile.diagnostics)
          if (d.file == b.kernel) d.file = c.kernel.path.string();
        continue;
      }
      if (!b.ok()) continue;
      modules[names[i]] = json{{"library", b.compile.library}, {"namespace", b.op_namespace}};
      facts.extensions.push_back(names[i]);
      for (const auto& k : b.own_kernels) c.build.own_kernels.push_back(k);
      if (c.build.compile.arch.empty() || c.build.compile.arch == "cpu") c.build.compile.arch = b.compile.arch;
      c.build.compile.kernels.insert(c.build.compile.kernels.end(), b.compile.kernels.begin(), b.compile.kernels.end());
    }
    if (c.build.compile.ok) c.build.compile.seconds = seconds;
  } catch (...) {
    worker.wait();
    throw;
  }
  for (const auto& k : rec.triton_kernels) c.build.own_kernels.push_back(k);
  worker.get();
  c.kernel_extra = json{{"modules", modules}};
  c.answer = facts;
  if (ctx.stop.stop_requested()) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
  c.device_context = impl.device_context(c.device, ctx);
  if (c.build.ok()) c.staged_task = impl.stage_task(c.task, c.task_hash);
  return c;
}

}  // namespace hone
