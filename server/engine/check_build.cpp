// engine/check_build.cpp: Engine::build, the toolchain's KernelBuilder behind the sandbox's
// compiler confinement, with the outcome mapped to what the engine's callers expect.
#include "engine/engine_impl.h"
#include "support/paths.h"
#include "toolchain/kernel_builder.h"
#include "toolchain/tools.h"
#include "toolchain/torch_env.h"

namespace hone {
namespace {

// What a confined compiler must read besides the kernel's folder and the system: its own install
// root, hone's headers, and for the torch form torch's headers and libraries and the torch glue
// object the builder compiles once per torch version (under the cache's glue folder).
std::vector<std::filesystem::path> toolchain_read_paths(const std::filesystem::path& kernel,
                                                        const std::optional<std::filesystem::path>& python) {
  std::vector<std::filesystem::path> paths{share_dir() / "include"};
  if (toolchain::language_for_path(kernel) == toolchain::KernelLanguage::Cuda) {
    if (auto nvcc = toolchain::find_nvcc(); nvcc.tool) paths.push_back(sandbox::compiler_root(nvcc.tool->path));
  }
  if (auto cxx = toolchain::find_host_compiler(); cxx.tool) paths.push_back(sandbox::compiler_root(cxx.tool->path));
  if (auto torch = toolchain::find_torch_env(python); torch.env) {
    for (const auto& d : torch.env->include_dirs) paths.push_back(d);
    paths.push_back(torch.env->library_dir);
    std::filesystem::create_directories(cache_dir() / "glue");
    paths.push_back(cache_dir() / "glue");
  }
  return paths;
}

}  // namespace

BuildOutcome Engine::build(const BuildRequest& request, const CallContext& ctx) {
  Impl& impl = *impl_;
  const std::filesystem::path kernel = impl.absolute(request.kernel.path);
  static const toolchain::KernelBuilder builder;  // resolves the share and cache folders once

  // The interpreter found once for the workers (searching again costs a Python start per build);
  // without one, raw-form builds still work and a torch-form build says what is missing.
  std::optional<std::filesystem::path> python = impl.options.python;
  try {
    python = impl.python();
  } catch (const EngineError&) {
    python = impl.options.python;
  }

  toolchain::BuildRequest br;
  br.kernel = kernel;
  br.contents = request.kernel.contents;
  br.arch = impl.options.arch;
  br.python = python;
  br.timeout = impl.options.compile_timeout;
  br.extra_flags = request.extra_flags;
  br.stop = ctx.stop;
  const sandbox::Sandbox& box = impl.sandbox();
  if (box.mode() != sandbox::SandboxMode::none) {
    auto readable = toolchain_read_paths(kernel, python);
    br.wrap_command = [&box, kernel, readable](ProcessSpec spec) {
      std::filesystem::path out = spec.cwd.value_or(std::filesystem::temp_directory_path());
      return box.wrap(spec, sandbox::build_policy(kernel.parent_path(), out, readable));
    };
  }
  if (ctx.progress) ctx.progress(Progress{"build", "compiling " + kernel.filename().string()});
  toolchain::BuildResult r = builder.build(br);

  switch (r.outcome) {
    case toolchain::BuildOutcome::Built:
    case toolchain::BuildOutcome::CompileError: break;
    case toolchain::BuildOutcome::TimedOut:
      // A compiler that runs past its deadline is the kernel's problem (template blow-up, a huge
      // unrolled loop): a compile error with the toolchain's explanation.
      if (r.report.diagnostics.empty())
        r.report.diagnostics.push_back({kernel.string(), 0, 0, protocol::Severity::Error, r.error,
                                        protocol::DiagnosticSource::Hone});
      break;
    case toolchain::BuildOutcome::Cancelled: throw EngineError(EngineError::Kind::Cancelled, "cancelled");
    case toolchain::BuildOutcome::BadInput: throw EngineError(EngineError::Kind::Usage, r.error);
    case toolchain::BuildOutcome::MissingTool: throw EngineError(EngineError::Kind::Environment, r.error);
  }
  BuildOutcome out;
  out.report = std::move(r.report);
  out.report.ok = r.ok();
  out.form = r.form ? std::string(toolchain::to_string(*r.form)) : "unknown";
  out.language = std::string(toolchain::to_string(r.language));
  out.kernel_hash = r.kernel_hash;
  out.library = r.library;
  out.op_namespace = r.op_namespace;
  out.own_kernels = r.own_kernels;
  return out;
}

}  // namespace hone
