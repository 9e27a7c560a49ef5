// engine/check_build.cpp: Engine::build, the toolchain's KernelBuilder behind the sandbox: the
// include check first, then a compile that sees only the kernel's own files, with the outcome
// mapped to the typed build report (or an EngineError for what is not a kernel's problem).
#include <algorithm>

#include "engine/engine_impl.h"
#include "sandbox/include_guard.h"
#include "sandbox/kernel_stage.h"
#include "support/hash.h"
#include "support/paths.h"
#include "toolchain/compile_db.h"
#include "toolchain/kernel_builder.h"
#include "toolchain/kernel_source.h"
#include "toolchain/tools.h"
#include "toolchain/torch_env.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// What a confined compiler must read besides the kernel's files and the system: its own install
// root, hone's headers, and for the torch form torch's headers and libraries and the torch glue
// object the builder compiles once per torch version (under the cache's glue folder).
std::vector<fs::path> toolchain_read_paths(const fs::path& kernel, const std::optional<toolchain::TorchEnv>& torch) {
  std::vector<fs::path> paths{share_dir() / "include"};
  if (toolchain::language_for_path(kernel) == toolchain::KernelLanguage::Cuda) {
    if (auto nvcc = toolchain::find_nvcc(); nvcc.tool) paths.push_back(sandbox::compiler_root(nvcc.tool->path));
  }
  if (auto cxx = toolchain::find_host_compiler(); cxx.tool) paths.push_back(sandbox::compiler_root(cxx.tool->path));
  if (torch) {
    for (const auto& d : torch->include_dirs) paths.push_back(d);
    paths.push_back(torch->library_dir);
    fs::create_directories(cache_dir() / "glue");
    paths.push_back(cache_dir() / "glue");
  }
  return paths;
}

// A compile error, without compiling, for includes that reach outside the kernel's folder.
protocol::BuildReport refused_includes(const fs::path& kernel, const std::string& text, const sandbox::IncludeScan& scan,
                                       std::optional<toolchain::KernelForm> form, toolchain::KernelLanguage language) {
  protocol::BuildReport out;
  out.kernel = kernel.string();
  out.outcome = std::string(toolchain::to_string(toolchain::BuildOutcome::CompileError));
  for (const auto& v : scan.violations)
    out.compile.diagnostics.push_back({v.file.string(), v.line, v.column, protocol::Severity::Error, v.message,
                                       protocol::DiagnosticSource::Hone});
  out.compile.ok = false;
  out.form = form ? std::string(toolchain::to_string(*form)) : "unknown";
  out.language = std::string(toolchain::to_string(language));
  Sha256 hash;
  hash.field(text);
  for (std::size_t i = 1; i < scan.files.size(); ++i)
    hash.field(scan.files[i].path.lexically_relative(kernel.parent_path()).generic_string()).field(scan.files[i].contents);
  out.kernel_hash = hash.hex();
  return out;
}

// The toolchain's result as the build report (a compile that ran past its deadline keeps its
// explanation as a diagnostic: it is the kernel's problem, a template blow-up or a huge unrolled loop).
protocol::BuildReport report_of(const std::string& kernel, toolchain::BuildResult r) {
  protocol::BuildReport out;
  out.kernel = kernel;
  out.outcome = std::string(toolchain::to_string(r.outcome));
  out.form = r.form ? std::string(toolchain::to_string(*r.form)) : "unknown";
  out.language = std::string(toolchain::to_string(r.language));
  out.compile = std::move(r.report);
  out.compile.ok = r.ok();
  if (r.outcome == toolchain::BuildOutcome::TimedOut && out.compile.diagnostics.empty())
    out.compile.diagnostics.push_back({kernel, 0, 0, protocol::Severity::Error, r.error, protocol::DiagnosticSource::Hone});
  out.kernel_hash = std::move(r.kernel_hash);
  out.key = std::move(r.key);
  out.op_namespace = std::move(r.op_namespace);
  out.own_kernels = std::move(r.own_kernels);
  out.stage_seconds = std::move(r.stage_seconds);
  out.torch_headers = std::move(r.torch_headers);
  out.nvcc = std::move(r.nvcc_overlap);
  out.error = std::move(r.error);
  return out;
}

}  // namespace

namespace {

std::optional<toolchain::ProjectFlags> project_flags_for(toolchain::BuildRequest& br, const fs::path& kernel,
                                                         const std::optional<fs::path>& setting, std::string& error) {
  auto db = toolchain::find_compile_database(kernel, setting);
  if (!db) return std::nullopt;
  std::optional<toolchain::ProjectFlags> project = toolchain::project_flags(*db, kernel, &error);
  if (project) {
    br.project_flags = project->flags;
    if (project->includer) {
      br.includer = project->includer->source;
      br.includer_line = project->includer->line;
    }
  }
  return project;
}

bool is_within(const fs::path& p, const fs::path& folder) {
  const fs::path rel = p.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != "..";
}

// A plain build is the user's own project file, compiled and never run: the compiler reads the
// project (the workspace holding it, else the file's folder), its include folders, and the folders
// of the headers its quoted includes reach outside it ("../include/h.cuh"), all read-only.
void confine_plain_build(toolchain::BuildRequest& br, const sandbox::Sandbox& box, const fs::path& kernel,
                         const std::string& text, const fs::path& workspace,
                         const std::optional<toolchain::TorchEnv>& torch,
                         const std::optional<toolchain::ProjectFlags>& project) {
  fs::path root = kernel.parent_path();
  const fs::path ws = workspace.empty() ? fs::path() : fs::absolute(workspace).lexically_normal();
  if (!ws.empty() && is_within(kernel, ws)) root = ws;
  auto readable = toolchain_read_paths(kernel, torch);
  if (project) {
    for (const auto& d : project->include_dirs) readable.push_back(d);
    readable.push_back(project->directory);
    if (project->includer) readable.push_back(project->includer->source.parent_path());
  }
  // Every local header the file reaches (the scan's root is the whole file system: nothing is a
  // violation here, this is no candidate), by the folder, as the compiler looks for siblings there.
  for (const sandbox::LocalFile& header : sandbox::scan_includes(kernel, text, kernel.root_path()).files) {
    const fs::path folder = header.path.parent_path();
    if (!is_within(folder, root) && std::find(readable.begin(), readable.end(), folder) == readable.end())
      readable.push_back(folder);
  }
  std::error_code ec;
  std::erase_if(readable, [&](const fs::path& p) { return !fs::exists(p, ec); });
  br.wrap_command = [&box, root, readable](ProcessSpec spec) {
    fs::path out = spec.cwd.value_or(fs::temp_directory_path());
    return box.wrap(spec, sandbox::build_policy(root, out, readable));
  };
}

// A hone-form build: no include may reach outside the kernel's folder (defence in depth before any
// compiler runs: a refused one is returned as the report); the compiler reads the kernel's text
// from its build folder and, of the kernel's folder, only copies of the local headers the scan
// walked (whatever the folder's modes: candidates may run as another user), at their own paths.
std::optional<protocol::BuildReport> confine_staged_build(toolchain::BuildRequest& br, const sandbox::Sandbox& box,
                                                          const fs::path& kernel, const std::string& text,
                                                          std::optional<toolchain::KernelForm> form,
                                                          toolchain::KernelLanguage language,
                                                          const std::optional<toolchain::TorchEnv>& torch) {
  sandbox::IncludeScan scan = sandbox::scan_includes(kernel, text, kernel.parent_path());
  if (!scan.violations.empty()) return refused_includes(kernel, text, scan, form, language);
  scan.files.erase(scan.files.begin());
  try {
    sandbox::StagedKernel staged;
    if (!scan.files.empty()) staged = sandbox::stage_kernel_files(kernel.parent_path(), scan.files, cache_dir() / "sources");
    auto readable = toolchain_read_paths(kernel, torch);
    br.wrap_command = [&box, kernel, staged, readable](ProcessSpec spec) {
      fs::path out = spec.cwd.value_or(fs::temp_directory_path());
      return box.wrap(spec, sandbox::staged_build_policy(kernel.parent_path(), staged.dir, staged.files, out, readable));
    };
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Environment,
                      "sandbox: cannot prepare the confined build of " + kernel.string() + ": " + e.what());
  }
  return std::nullopt;
}

// The kernel's text (a file hone cannot read or name is the builder's to report: BadInput), its
// language and form; `plain`: a file of the user's project, not a hone kernel (its form decides
// whether torch is needed at all).
struct BuildSource {
  std::optional<std::string> text;
  std::optional<toolchain::KernelLanguage> language;
  std::optional<toolchain::KernelForm> form;
  bool plain = false;
};

BuildSource build_source(const fs::path& kernel, const BuildRequest& request) {
  BuildSource out;
  out.text = request.kernel.contents;
  out.language = toolchain::language_for_path(kernel);
  if (!out.text && out.language) {
    try {
      out.text = read_file(kernel);
    } catch (const std::exception&) {
      out.text = std::nullopt;
    }
  }
  if (out.text && out.language) {
    const toolchain::SourceFacts facts = toolchain::analyze_kernel_source(kernel, *out.text);
    out.form = facts.form;
    out.plain = !request.require_form && (!facts.form || (toolchain::kernel_file_type(kernel)->header && !facts.forward));
  }
  return out;
}

// Built, a compile error and a timeout are reports; the other outcomes are the engine's errors.
void throw_unless_reportable(const toolchain::BuildResult& r) {
  switch (r.outcome) {
    case toolchain::BuildOutcome::Built:
    case toolchain::BuildOutcome::CompileError:
    case toolchain::BuildOutcome::TimedOut: return;
    case toolchain::BuildOutcome::Cancelled: throw EngineError(EngineError::Kind::Cancelled, "cancelled");
    case toolchain::BuildOutcome::BadInput: throw EngineError(EngineError::Kind::Usage, r.error);
    case toolchain::BuildOutcome::MissingTool: throw EngineError(EngineError::Kind::Environment, r.error);
  }
}

}  // namespace

protocol::BuildReport Engine::build(const BuildRequest& request, const CallContext& ctx) {
  Impl& impl = *impl_;
  const fs::path kernel = impl.absolute(request.kernel.path);
  static const toolchain::KernelBuilder builder;  // resolves the share and cache folders once

  toolchain::BuildRequest br;
  br.kernel = kernel;
  br.contents = request.kernel.contents;
  br.arch = impl.options.arch;
  br.python = impl.options.python;
  br.timeout = impl.options.compile_timeout;
  br.extra_flags = request.extra_flags;
  br.use_cache = request.use_cache;
  br.require_form = request.require_form;
  br.inline_functions = request.inline_functions;
  br.stop = ctx.stop;

  const BuildSource source = build_source(kernel, request);
  const std::optional<std::string>& text = source.text;
  const auto& language = source.language;
  const std::optional<toolchain::KernelForm>& form = source.form;
  const bool plain = source.plain;
  // A plain build compiles with its project's flags, when the file has a project.
  std::string project_error;
  std::optional<toolchain::ProjectFlags> project =
      plain ? project_flags_for(br, kernel, impl.options.compile_commands, project_error) : std::nullopt;

  // The torch form needs the interpreter the workers run (found once: a search costs a Python
  // start); the raw form never asks for it. Without one, a torch-form build says what is missing.
  std::optional<toolchain::TorchEnv> torch;
  if (!plain && form != toolchain::KernelForm::Raw) {
    try {
      br.python = impl.python();
    } catch (const EngineError&) {
      br.python = impl.options.python;
    }
    if (auto found = toolchain::find_torch_env(br.python); found.env) torch = found.env;
  }

  if (text) br.task_constants = impl.task_constants(*this, request.kernel, *text, request.task, ctx);

  const sandbox::Sandbox& box = impl.sandbox();
  if (box.mode() != sandbox::SandboxMode::none && text && language && plain) {
    confine_plain_build(br, box, kernel, *text, impl.options.workspace, torch, project);
  } else if (box.mode() != sandbox::SandboxMode::none && text && language) {
    if (auto refused = confine_staged_build(br, box, kernel, *text, form, *language, torch)) {
      refused->kernel = request.kernel.path.string();
      return *refused;
    }
  }
  if (ctx.progress) ctx.progress(Progress{"build", "compiling " + kernel.filename().string()});
  toolchain::BuildResult r = builder.build(br);

  throw_unless_reportable(r);
  protocol::BuildReport out = report_of(request.kernel.path.string(), std::move(r));
  if (!project_error.empty())
    out.compile.diagnostics.push_back({kernel.string(), 0, 0, protocol::Severity::Warning,
                                       "the project's compile database cannot be read: " + project_error,
                                       protocol::DiagnosticSource::Hone});
  return out;
}

}  // namespace hone
