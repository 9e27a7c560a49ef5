// toolchain/kernel_builder.cpp: one kernel build: analyse, resolve tools, key, cache lookup,
// compile in a private folder, parse the output, publish.
#include "toolchain/kernel_builder.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <future>

#include "support/hash.h"
#include "support/paths.h"
#include "toolchain/build_cache.h"
#include "toolchain/command_runner.h"
#include "toolchain/compile_plan.h"
#include "toolchain/cuda_libraries.h"
#include "toolchain/diagnostics.h"
#include "toolchain/early_sass.h"
#include "toolchain/flag_directive.h"
#include "toolchain/kernel_facts.h"
#include "toolchain/nvcc_pipeline.h"
#include "toolchain/tamper_signs.h"
#include "toolchain/tools.h"
#include "toolchain/torch_env.h"
#include "toolchain/torch_glue.h"
#include "toolchain/torch_light.h"

namespace hone::toolchain {
namespace fs = std::filesystem;
using protocol::Diagnostic;
using protocol::DiagnosticSource;
using protocol::Severity;

namespace {

using Clock = std::chrono::steady_clock;

// HONE_NVCC_OVERLAP=0 runs nvcc as one command (to compare, or should the overlap misbehave).
bool overlap_nvcc() {
  const char* v = std::getenv("HONE_NVCC_OVERLAP");
  return !(v && std::string_view(v) == "0");
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr std::size_t kOutputTail = 4000;

std::string tail(const std::string& s, std::size_t n = kOutputTail) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

// The files of hone's share folder that end up in a build of this form.
std::vector<fs::path> entry_files(const fs::path& share, KernelForm form) {
  const fs::path inc = share / "include";
  if (form == KernelForm::Raw) return {inc / "hone.h", inc / "hone" / "raw_entry.h"};
  return {inc / "hone" / "torch_entry.h", inc / "hone" / "torch_abi.h", inc / "hone" / "torch_signature.h",
          inc / "hone" / "inline_entry.h", inc / "shim" / "torch" / "extension.h", inc / "hone" / "torch_light.h",
          inc / "hone" / "torch_glue.cpp"};
}

class Build {
 public:
  Build(const KernelBuilder& builder, const BuildRequest& request) : b_(builder), req_(request), start_(Clock::now()) {}

  BuildResult run() {
    try {
      prepare();
    } catch (const std::exception& e) {
      // The file system or the cache folder failed under us (full disk, permissions): an
      // environment problem, reported, never thrown at the caller.
      fail(BuildOutcome::MissingTool, std::string("hone could not build ") + kernel_.string() + ": " + e.what());
    }
    res_.seconds = since(start_);
    res_.report.seconds = res_.seconds;
    return std::move(res_);
  }

 private:
  BuildResult& fail(BuildOutcome outcome, std::string error) {
    res_.outcome = outcome;
    res_.error = std::move(error);
    res_.report.ok = false;
    return res_;
  }

  void compile_error(std::string message, int line) {
    res_.report.diagnostics.push_back(Diagnostic{kernel_.string(), line, line > 0 ? 1 : 0, Severity::Error, message, DiagnosticSource::Hone});
    fail(BuildOutcome::CompileError, std::move(message));
  }

  void stage(const char* name, Clock::time_point t) { res_.stage_seconds[name] += since(t); }

  // false after a failure (fail / compile_error have set the outcome): the build goes no further.
  bool stopped(BuildOutcome outcome, std::string error) {
    fail(outcome, std::move(error));
    return false;
  }
  bool stopped_at(std::string message, int line) {
    compile_error(std::move(message), line);
    return false;
  }

  void prepare() {
    if (!read_source() || !resolve_form() || !find_tools() || !scan_texts() || !compute_key()) return;
    // A project build reads headers hone does not hash (its include folders): never from the cache.
    project_ = !req_.project_flags.empty() || req_.includer;
    if (req_.use_cache && !project_ && served_from_cache()) return;
    compile();
  }

  // The kernel's language (from its extension, against the request's device), its text, what the
  // source analysis finds in it and its hash.
  bool read_source() {
    auto t = Clock::now();
    kernel_ = fs::absolute(req_.kernel).lexically_normal();
    auto language = language_for_path(kernel_);
    if (!language) return stopped(BuildOutcome::BadInput, unknown_extension_message(kernel_));
    res_.language = *language;
    cuda_ = *language == KernelLanguage::Cuda;
    if (req_.device && (*req_.device == BuildDevice::Cuda) != cuda_)
      return stopped(BuildOutcome::BadInput,
                     kernel_.string() + ": a " + kernel_.extension().string() + " kernel builds for the " +
                         (cuda_ ? "GPU (nvcc)" : "CPU (host compiler)") + ", not for the " +
                         (cuda_ ? "CPU: write the CPU version as a .cpp file" : "GPU: write the GPU version as a .cu file"));
    if (req_.contents) {
      source_ = *req_.contents;
    } else {
      std::error_code ec;
      if (!fs::is_regular_file(kernel_, ec)) return stopped(BuildOutcome::BadInput, kernel_.string() + ": no such file");
      try {
        source_ = read_file(kernel_);
      } catch (const std::exception& e) {
        return stopped(BuildOutcome::BadInput, e.what());
      }
    }
    facts_ = analyze_kernel_source(kernel_, source_);
    res_.form = facts_.form;
    for (const auto& g : facts_.globals) res_.own_kernels.push_back(g.name);
    Sha256 kh;
    kh.field(source_);
    for (const auto& h : facts_.headers) kh.field(h.path.lexically_relative(kernel_.parent_path()).generic_string()).field(h.contents);
    res_.kernel_hash = kh.hex();
    stage("analyze", t);
    return true;
  }

  // The architecture, whether this is a plain build of a project file or a hone kernel (and
  // whether that is what the request allows), and the compiler flags.
  bool resolve_form() {
    if (cuda_) {
      res_.report.arch = resolve_arch(req_.arch);
      if (!valid_arch(res_.report.arch))
        return stopped(BuildOutcome::BadInput, "invalid GPU architecture '" + res_.report.arch + "': expected sm_XX such as sm_90 or sm_90a");
    } else {
      res_.report.arch = "cpu";
    }
    const bool header = kernel_file_type(kernel_)->header;
    const bool inline_answer = !req_.inline_functions.empty();
    plain_ = !inline_answer && (!facts_.form || (header && !facts_.forward));
    if (plain_ && req_.require_form)
      return stopped_at(facts_.form ? no_forward_message(facts_.form) : no_form_message(), 1);
    if (inline_answer && facts_.form != KernelForm::Torch)
      return stopped_at("a load_inline answer's sources build in the torch form (torch/extension.h)", 1);
    if (!plain_ && !facts_.forward && !inline_answer) return stopped_at(no_forward_message(facts_.form), 1);
    res_.plain = plain_;
    if (plain_) prepare_plain();
    if (facts_.form) form_ = *facts_.form;
    // The kernel's own `// hone: flags=` line first, then the caller's flags it does not name.
    FlagDirectiveParse directive = parse_flag_directive(source_, res_.language);
    if (!directive.error.empty()) return stopped_at(directive.error, directive.error_line);
    extra_flags_ = merge_flags(directive.directive ? directive.directive->flags : std::vector<std::string>{}, req_.extra_flags);
    return true;
  }

  // The host compiler, nvcc and cuobjdump for a CUDA kernel, torch for the torch form.
  bool find_tools() {
    auto t = Clock::now();
    auto host = find_host_compiler();
    if (!host.tool) return stopped(BuildOutcome::MissingTool, host.error);
    host_ = *host.tool;
    if (cuda_) {
      auto nvcc = find_nvcc();
      if (!nvcc.tool) return stopped(BuildOutcome::MissingTool, nvcc.error);
      compiler_ = *nvcc.tool;
      cuobjdump_ = find_cuobjdump(compiler_.path);
    } else {
      compiler_ = host_;
    }
    stage("tools", t);
    if (!plain_ && form_ == KernelForm::Torch) {
      t = Clock::now();
      auto env = find_torch_env(req_.python);
      stage("torch_env", t);
      if (!env.env) return stopped(BuildOutcome::MissingTool, env.error);
      torch_ = *env.env;
    }
    return true;
  }

  // What the kernel's text and headers name decides the headers it gets (torch's light headers,
  // the 16-bit float and standard library headers of the raw form) and the CUDA libraries (cuBLAS,
  // cuDNN, ...) it links, in both forms.
  bool scan_texts() {
    std::vector<std::string_view> texts{source_};
    for (const auto& h : facts_.headers) texts.push_back(h.contents);
    if (!plain_ && form_ == KernelForm::Torch) light_ = plan_torch_light(texts, torch_.include_dirs);
    if (!plain_ && form_ == KernelForm::Raw) {
      if (cuda_) fp16_headers_ = names_16bit_floats(texts);
      std_headers_ = names_std_library(texts);
    }
    if (cuda_) {
      auto names = cuda_libraries_named(texts);
      if (!names.empty()) {
        const fs::path root = fs::weakly_canonical(compiler_.path).parent_path().parent_path();
        library_flags_ = cuda_library_flags(
            locate_cuda_libraries(names, root, form_ == KernelForm::Torch ? torch_.library_dir : fs::path()));
      }
    }
    return true;
  }

  // The cached report (and library) of an identical build; false when there is none.
  bool served_from_cache() {
    auto t = Clock::now();
    auto cached = cache().lookup(res_.key);
    stage("cache_lookup", t);
    if (!cached) return false;
    res_.report = std::move(*cached);
    res_.report.cached = true;
    res_.cached = true;
    res_.outcome = res_.report.ok ? BuildOutcome::Built : BuildOutcome::CompileError;
    if (res_.report.ok) res_.library = res_.report.library;
    return true;
  }

  BuildCache cache() const { return BuildCache(b_.cache_dir() / "build"); }

  // A plain build's translation unit: a header through its includer's text up to its #include,
  // else on its own as a header unit (its `#pragma once` blanked: it is the main file here).
  void prepare_plain() {
    // A header is the main file here: its `#pragma once` would be warned about.
    if (kernel_file_type(kernel_)->header) {
      std::size_t at = 0;
      while ((at = source_.find("#pragma once", at)) != std::string::npos) source_.replace(at, 12, std::string(12, ' '));
    }
    if (!req_.includer) return;
    try {
      includer_text_ = read_file(*req_.includer);
    } catch (const std::exception&) {
      return;
    }
    std::size_t at = 0;
    for (int line = 1; line < req_.includer_line && at != std::string::npos; ++line) {
      at = includer_text_.find('\n', at);
      if (at != std::string::npos) ++at;
    }
    prefix_ = "#line 1 \"" + req_.includer->string() + "\"\n" +
              includer_text_.substr(0, at == std::string::npos ? includer_text_.size() : at);
  }

  PlanInputs plan_inputs() const {
    PlanInputs in;
    in.kernel = kernel_;
    in.source = source_;
    in.language = res_.language;
    in.form = form_;
    in.compiler = compiler_.path;
    in.host_compiler = host_.path;
    in.arch = res_.report.arch;
    in.share_dir = b_.share_dir();
    in.torch = form_ == KernelForm::Torch ? &torch_ : nullptr;
    in.extra_flags = extra_flags_;
    in.link_flags = library_flags_;
    in.inline_functions = req_.inline_functions;
    in.prelude = task_constants_prelude(req_.task_constants);
    in.torch_light = form_ == KernelForm::Torch && light_.usable;
    in.fp16_headers = fp16_headers_;
    in.std_headers = std_headers_;
    in.plain = plain_;
    in.project_flags = req_.project_flags;
    in.prefix = prefix_;
    return in;
  }

  bool compute_key() {
    Sha256 h;
    // The versions change when a report built from the same inputs would differ (v3: EDG columns in
    // bytes, gcc locations in paths with spaces, plain builds reading headers outside the workspace),
    // so that no cached report keeps an old mistake.
    h.field(plain_ ? "hone-build-v3-plain" : "hone-build-v3").field(kernel_.string()).field(source_).field(prefix_)
        .field(task_constants_prelude(req_.task_constants));
    for (const auto& header : facts_.headers) h.field(header.path.string()).field(header.contents);
    try {
      if (!plain_)
        for (const auto& f : entry_files(b_.share_dir(), form_)) h.field(f.string()).field(read_file(f));
    } catch (const std::exception& e) {
      fail(BuildOutcome::MissingTool, std::string("hone's share folder is incomplete: ") + e.what());
      return false;
    }
    h.field(compiler_.path.string()).field(compiler_.version).field(host_.path.string()).field(host_.version);
    h.field(res_.report.arch).field(cuobjdump_ ? cuobjdump_->string() : "no cuobjdump");
    if (!plain_ && form_ == KernelForm::Torch)
      h.field(torch_.version).field(torch_.torch_dir.string()).field(torch_.cxx11_abi ? "abi1" : "abi0").field(torch_.cuda.value_or("cpu"));
    // The command without the op namespace, which is derived from this key.
    for (const auto& a : make_compile_plan(plan_inputs()).argv) h.field(a);
    res_.key = h.hex();
    if (!plain_ && form_ == KernelForm::Torch) res_.op_namespace = "hone_" + res_.key.substr(0, 16);
    return true;
  }

  void compile() {
    PlanInputs in = plan_inputs();
    in.op_namespace = res_.op_namespace;
    std::future<GlueResult> glue_job;
    if (!start_glue(in, glue_job)) return;
    CompilePlan plan = make_compile_plan(in);
    BuildCache c = cache();
    try {
      work_ = c.make_work_dir(res_.key);
      write_file_atomic(work_ / plan.tu_name, plan.tu_text);
      if (in.torch_light) write_file_atomic(work_ / kTorchOpsHeader, light_.ops_header_text);
    } catch (const std::exception& e) {
      return void(fail(BuildOutcome::MissingTool, std::string("cannot write the build folder: ") + e.what()));
    }
    if (cuda_) fs::create_directories(work_ / plan.keep_dir);
    if (!plain_ && form_ == KernelForm::Torch) res_.torch_headers = in.torch_light ? "light" : "full: " + light_.why_full;
    cubin_ = work_ / plan.keep_dir / ("kernel." + res_.report.arch + ".cubin");
    std::string light_log;
    ProcessResult run = compile_with_fallback(in, plan, light_log);
    if (glue_job.valid() && !glue_ready(glue_job)) return BuildCache::discard(work_);
    res_.report.command = plan.argv;
    if (!run_ended_normally(run, plan)) return BuildCache::discard(work_);
    const std::string output = run.err + (run.out.empty() ? "" : "\n" + run.out);
    res_.report.diagnostics = parse_compiler_output(output, diagnostic_context());
    std::error_code ec;
    const bool built = run.ok() && fs::is_regular_file(work_ / plan.library_name, ec);
    if (!built && res_.report.count(Severity::Error) == 0) {
      res_.report.diagnostics.push_back(Diagnostic{kernel_.string(), 0, 0, Severity::Error,
                                                   "the compiler failed (" + run.describe() + ") without a message hone could place: " +
                                                       command_line(plan.argv) + "\n" + tail(output),
                                                   DiagnosticSource::Hone});
    }
    res_.report.ok = built;
    if (built && !plain_) scan_own_code(plan);
    if (built && cuda_) collect_facts(plan, output);
    if (built && !plain_) res_.report.library = (c.entry_dir(res_.key) / plan.library_name).string();
    try {
      write_file_atomic(work_ / "build.log", light_log + command_line(plan.argv) + "\n" + output);
      write_file_atomic(work_ / "report.json", nlohmann::json(res_.report).dump(2));
      c.publish(work_, res_.key, !req_.use_cache || project_);
    } catch (const std::exception& e) {
      BuildCache::discard(work_);
      return void(fail(BuildOutcome::MissingTool, std::string("cannot store the build in the cache: ") + e.what()));
    }
    res_.outcome = built ? BuildOutcome::Built : BuildOutcome::CompileError;
    if (built && !plain_) res_.library = res_.report.library;
  }

  // The torch form links hone's glue, compiled once per torch installation. When it is not cached
  // yet, a CUDA kernel's compile runs beside it and waits for it only to link (wait_for_glue_); a
  // host compiler build is one command, so it waits first. False when the build failed.
  bool start_glue(PlanInputs& in, std::future<GlueResult>& glue_job) {
    if (plain_ || form_ != KernelForm::Torch) return true;
    GlueRequest g{b_.share_dir(), b_.cache_dir(), host_.path, host_.version, &torch_, req_.timeout, req_.stop, req_.wrap_command};
    std::string error;
    auto object = torch_glue_object(g, &error);
    if (!object) return stopped(BuildOutcome::MissingTool, error);
    in.glue_object = object;
    std::error_code ec;
    if (fs::is_regular_file(*object, ec)) return true;
    glue_job = std::async(std::launch::async, [this, g] {
      auto t = Clock::now();
      GlueResult r = ensure_torch_glue(g);
      glue_seconds_ = since(t);
      return r;
    });
    if (!cuda_) return glue_ready(glue_job);
    wait_for_glue_ = [&glue_job] { glue_job.wait(); };
    return true;
  }

  // One compiler run of `p` (nvcc's steps overlapped where it can); the SASS disassembly overlaps
  // its host compile.
  ProcessResult compile_once(const CompilePlan& p) {
    std::optional<EarlySass> early;
    if (cuda_ && cuobjdump_)
      early.emplace(CompilerCommand{sass_argv(*cuobjdump_, cubin_), work_, req_.timeout, req_.stop, req_.wrap_command}, cubin_,
                    work_ / p.keep_dir / "kernel.fatbin");
    CompilerCommand command{p.argv, work_, req_.timeout, req_.stop, req_.wrap_command};
    ProcessResult r;
    if (cuda_ && overlap_nvcc()) {
      OverlapReport overlap;
      r = run_nvcc_overlapped(command, wait_for_glue_, &overlap);
      res_.nvcc_overlap = overlap.overlapped ? "overlapped" : "one command: " + overlap.why_not;
      if (overlap.overlapped) {
        res_.stage_seconds["nvcc_host_front"] = overlap.host_seconds;
        res_.stage_seconds["nvcc_device"] = overlap.device_seconds;
        res_.stage_seconds["nvcc_host_compile_link"] = overlap.after_seconds;
      }
    } else {
      if (wait_for_glue_) wait_for_glue_();
      r = run_compiler(command);
    }
    if (early) sass_ = early->finish(r.ok());
    return r;
  }

  // The compile with the light headers; when they did not declare something the kernel uses, again
  // with the full headers, which decide (only their diagnostics are reported; `light_log` keeps
  // the first run's).
  ProcessResult compile_with_fallback(PlanInputs& in, CompilePlan& plan, std::string& light_log) {
    auto t = Clock::now();
    ProcessResult run = compile_once(plan);
    stage("compile", t);
    if (plain_ || !(in.torch_light || !in.fp16_headers || !in.std_headers) || !run.started || run.ok() || run.timed_out ||
        run.cancelled)
      return run;
    res_.stage_seconds["compile_light"] = res_.stage_seconds["compile"];
    light_log = "# light headers (failed; rebuilt with the full headers)\n" + command_line(plan.argv) + "\n" + run.err +
                run.out + "\n# full headers\n";
    in.torch_light = false;
    in.fp16_headers = true;
    in.std_headers = true;
    plan = make_compile_plan(in);
    t = Clock::now();
    run = compile_once(plan);
    res_.stage_seconds["compile"] = since(t);
    if (form_ == KernelForm::Torch) res_.torch_headers = "full: the light header did not suffice";
    return run;
  }

  // False (the outcome set) for a compiler run that was cancelled, timed out or never started.
  bool run_ended_normally(const ProcessResult& run, const CompilePlan& plan) {
    if (run.cancelled) return stopped(BuildOutcome::Cancelled, "build cancelled");
    if (run.timed_out) {
      const std::string msg = "compilation timed out after " + std::to_string(req_.timeout.count()) +
                              " s and was stopped (raise the limit with --timeout): " + command_line(plan.argv);
      res_.report.diagnostics.push_back(Diagnostic{kernel_.string(), 0, 0, Severity::Error, msg, DiagnosticSource::Hone});
      return stopped(BuildOutcome::TimedOut, msg);
    }
    if (!run.started) return stopped(BuildOutcome::MissingTool, "cannot run " + command_line(plan.argv) + ": " + run.describe());
    return true;
  }

  // How compiler messages map back to the user's files (the kernel, its headers, a plain header's
  // includer) from the build folder's translation unit.
  DiagnosticContext diagnostic_context() const {
    DiagnosticContext dc;
    dc.user_file = kernel_;
    dc.user_text = source_;
    dc.work_dir = work_;
    dc.kernel_dir = kernel_.parent_path();
    dc.share_include = b_.share_dir() / "include";
    dc.forward = facts_.forward;
    dc.user_files.push_back(kernel_);
    dc.user_texts[kernel_] = source_;
    for (const auto& h : facts_.headers) {
      dc.user_files.push_back(h.path);
      dc.user_texts[h.path] = h.contents;
    }
    if (req_.includer && !prefix_.empty()) {
      dc.user_files.push_back(*req_.includer);
      dc.user_texts[*req_.includer] = includer_text_;
    }
    dc.kernel_line = [this](const std::string& mangled) { return kernel_line_in_file(facts_, kernel_, mangled); };
    return dc;
  }

  // Tamper signs in the kernel's own code (toolchain/tamper_signs.h): CUDA, nvcc's host object
  // (the library also holds the static CUDA runtime, which imports dlopen itself); C++, the library.
  void scan_own_code(const CompilePlan& plan) {
    const fs::path object = cuda_ ? work_ / plan.keep_dir / "kernel.o" : work_ / plan.library_name;
    std::error_code ec;
    if (!fs::is_regular_file(object, ec)) {
      res_.report.tamper_signs = {"could not be scanned (no " + object.filename().string() + " after the build)"};
      return;
    }
    res_.report.tamper_signs = scan_tamper_signs(object);
  }

  // A built CUDA kernel's facts (registers, shared memory, SASS); keeps what later stages read
  // (PTX, cubin) and drops nvcc's other intermediates.
  void collect_facts(const CompilePlan& plan, const std::string& output) {
    auto t = Clock::now();
    KernelFactsInputs fi;
    fi.source = &facts_;
    fi.kernel = kernel_;
    fi.arch = res_.report.arch;
    fi.ptxas_output = output;
    fi.ptx = work_ / plan.keep_dir / "kernel.ptx";
    fi.cubin = cubin_;
    fi.cuobjdump = cuobjdump_;
    fi.work_dir = work_;
    fi.timeout = req_.timeout;
    fi.stop = req_.stop;
    fi.wrap_command = req_.wrap_command;
    fi.sass_run = std::move(sass_);
    KernelFacts kf = collect_kernel_facts(fi);
    stage("facts", t);
    res_.report.kernels = std::move(kf.kernels);
    res_.report.sass_available = kf.sass_available;
    if (!kf.sass_error.empty())
      res_.report.diagnostics.push_back(Diagnostic{kernel_.string(), 0, 0, Severity::Warning,
                                                   "SASS facts unavailable: " + kf.sass_error, DiagnosticSource::Hone});
    std::error_code ec;
    fs::rename(fi.ptx, work_ / "kernel.ptx", ec);
    fs::rename(fi.cubin, work_ / "kernel.cubin", ec);
    fs::remove_all(work_ / plan.keep_dir, ec);
  }

  // Waits for the glue compile; false (the build failed, with the glue's error) when it failed.
  bool glue_ready(std::future<GlueResult>& job) {
    GlueResult glue = job.get();
    res_.stage_seconds["glue"] = glue_seconds_;
    if (glue.object) return true;
    if (glue.process.cancelled) fail(BuildOutcome::Cancelled, "build cancelled");
    else if (glue.process.timed_out) fail(BuildOutcome::TimedOut, glue.error);
    else fail(BuildOutcome::MissingTool, glue.error);
    return false;
  }

  const KernelBuilder& b_;
  const BuildRequest& req_;
  Clock::time_point start_;
  BuildResult res_;
  fs::path kernel_;
  bool cuda_ = true;
  std::string source_;
  std::vector<std::string> extra_flags_;  // the kernel's `// hone: flags=` line, then the request's
  SourceFacts facts_;
  KernelForm form_ = KernelForm::Raw;
  bool plain_ = false;
  bool project_ = false;       // built with a project's flags (never served from the cache)
  std::string prefix_;         // plain header builds: the includer up to its #include
  std::string includer_text_;
  Tool compiler_;
  Tool host_;
  std::optional<fs::path> cuobjdump_;
  std::vector<std::string> library_flags_;  // CUDA libraries the kernel's headers name
  TorchEnv torch_;
  TorchLightPlan light_;
  bool fp16_headers_ = true;
  bool std_headers_ = true;
  double glue_seconds_ = 0;
  // The compile's own state: its build folder, the cubin nvcc keeps there, the SASS disassembly
  // that overlapped it, and the wait for the glue compile a link needs (empty: none).
  fs::path work_;
  fs::path cubin_;
  std::optional<ProcessResult> sass_;
  std::function<void()> wait_for_glue_;
};

}  // namespace

std::string_view to_string(BuildOutcome outcome) {
  switch (outcome) {
    case BuildOutcome::Built: return "built";
    case BuildOutcome::CompileError: return "compile_error";
    case BuildOutcome::TimedOut: return "timed_out";
    case BuildOutcome::Cancelled: return "cancelled";
    case BuildOutcome::BadInput: return "bad_input";
    case BuildOutcome::MissingTool: return "missing_tool";
  }
  return "bad_input";
}

KernelBuilder::KernelBuilder() : KernelBuilder(hone::share_dir(), hone::cache_dir()) {}

KernelBuilder::KernelBuilder(fs::path share_dir, fs::path cache_dir) : share_(std::move(share_dir)), cache_(std::move(cache_dir)) {}

BuildResult KernelBuilder::build(const BuildRequest& request) const { return Build(*this, request).run(); }

}  // namespace hone::toolchain
