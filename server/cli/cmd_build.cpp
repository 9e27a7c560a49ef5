// cli/cmd_build.cpp: `hone build KERNEL [--arch sm_XX] [--json] [--python PATH] [--timeout S]
// [--flag F]... [--no-cache] [--no-sandbox]` compiles a kernel through the engine (the confined
// build the editor runs on save and a check runs first) and prints its diagnostics and per-kernel
// static facts, as text like a compiler or as one JSON object (protocol::BuildReport). Exit 0
// built, 1 did not compile, 2 bad usage or missing tool.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "engine/engine.h"

namespace hone::cli {
namespace {

using protocol::InstructionFacts;
using protocol::KernelStatic;

struct BuildOptions {
  std::string kernel;
  std::string arch;
  std::string python;
  double timeout_s = 300;
  std::vector<std::string> flags;
  std::string compile_commands;
  bool json = false;
  bool no_cache = false;
  bool no_sandbox = false;
};

std::string bytes(std::optional<std::int64_t> v) { return v ? std::to_string(*v) + " B" : "?"; }

std::string widths(const protocol::WidthCounts& counts) {
  if (counts.empty()) return "none";
  std::string s;
  for (const auto& [bits, n] : counts) s += (s.empty() ? "" : ", ") + std::to_string(bits) + "-bit x" + std::to_string(n);
  return s;
}

void print_instructions(std::ostream& os, const char* label, const InstructionFacts& f) {
  os << "    " << label << "  loads " << widths(f.global_loads) << "; stores " << widths(f.global_stores) << "; local "
     << f.local_loads << " ld / " << f.local_stores << " st; tensor cores ";
  if (!f.tensor_core) {
    os << "no\n";
    return;
  }
  os << "yes (";
  for (std::size_t i = 0; i < f.tensor_core_instructions.size(); ++i)
    os << (i ? ", " : "") << f.tensor_core_instructions[i];
  os << ")\n";
}

const char* block_size_origin(protocol::BlockSizeSource source) {
  switch (source) {
    case protocol::BlockSizeSource::LaunchBounds: return "from __launch_bounds__";
    case protocol::BlockSizeSource::LaunchSite: return "from the launch site";
    case protocol::BlockSizeSource::Measured: return "as launched";
    case protocol::BlockSizeSource::Assumed: break;
  }
  return "assumed (no constant launch bounds or launch site)";
}

void print_kernel(std::ostream& os, const KernelStatic& k) {
  os << "  " << k.name;
  if (k.line) os << "  (line " << *k.line << ")";
  os << "\n";
  os << "    registers " << (k.registers ? std::to_string(*k.registers) : "?") << ", spills " << bytes(k.spill_store_bytes)
     << " stored / " << bytes(k.spill_load_bytes) << " loaded, shared " << bytes(k.static_shared_bytes) << ", stack "
     << bytes(k.stack_frame_bytes) << ", constant " << bytes(k.constant_bytes) << "\n";
  if (k.ptx) print_instructions(os, "PTX ", *k.ptx);
  if (k.sass) print_instructions(os, "SASS", *k.sass);
  if (k.occupancy) {
    const auto& o = *k.occupancy;
    std::ostringstream pct;
    pct << std::fixed << std::setprecision(o.occupancy_pct == static_cast<int>(o.occupancy_pct) ? 0 : 1) << o.occupancy_pct;
    os << "    occupancy " << pct.str() << "% (" << o.active_warps_per_sm << "/" << o.max_warps_per_sm << " warps, "
       << o.active_blocks_per_sm << " blocks of " << o.block_size << " threads per SM; block size "
       << block_size_origin(o.block_size_source) << "; limited by " << protocol::to_string(o.limited_by) << ")\n";
  }
}

void print_text(const protocol::BuildReport& r) {
  const protocol::CompileReport& c = r.compile;
  for (const auto& d : c.diagnostics) {
    std::cerr << d.file;
    if (d.line > 0) std::cerr << ":" << d.line;
    if (d.line > 0 && d.column > 0) std::cerr << ":" << d.column;
    std::cerr << ": " << protocol::to_string(d.severity) << ": " << d.message << " [" << protocol::to_string(d.source) << "]\n";
  }
  if (!r.ok()) {
    std::cerr << "hone build: " << r.kernel << " did not compile (" << c.count(protocol::Severity::Error) << " error(s))\n";
    return;
  }
  std::ostringstream secs;
  secs << std::fixed << std::setprecision(2) << c.seconds;
  // A file without hone's form (or a header) builds for its diagnostics and facts only.
  const bool plain = c.library.empty();
  std::cout << "built " << r.kernel << " (" << (plain ? "no hone form: diagnostics and facts only" : r.form + " form") << ", " << c.arch
            << ") in " << secs.str() << " s" << (c.cached ? " (cached)" : "") << "\n";
  if (!plain) std::cout << "  library " << c.library << "\n";
  if (!r.op_namespace.empty()) std::cout << "  op torch.ops." << r.op_namespace << ".forward\n";
  if (!c.kernels.empty() && !c.sass_available) std::cout << "  (no cuobjdump here: instruction facts from PTX only)\n";
  for (const auto& k : c.kernels) print_kernel(std::cout, k);
}

int run_build(const BuildOptions& o) {
  EngineOptions options;
  if (!o.arch.empty()) options.arch = o.arch;
  if (!o.python.empty()) options.python = o.python;
  options.compile_timeout = std::chrono::seconds(static_cast<long>(o.timeout_s));
  options.sandbox = !o.no_sandbox;
  if (!o.compile_commands.empty()) options.compile_commands = o.compile_commands;
  protocol::BuildReport r;
  try {
    Engine engine(options);
    BuildRequest request;
    request.kernel.path = o.kernel;
    request.extra_flags = o.flags;
    request.use_cache = !o.no_cache;
    r = engine.build(request);
  } catch (const EngineError& e) {
    return report_error(e, o.json, "kernel", o.kernel);
  }
  if (o.json) std::cout << nlohmann::json(r).dump(2) << "\n";
  else print_text(r);
  return r.ok() ? 0 : 1;
}

}  // namespace

void add_build_command(CLI::App& app, CommandRegistry& registry) {
  auto o = std::make_shared<BuildOptions>();
  CLI::App* cmd = app.add_subcommand("build", "Compile a kernel and report diagnostics, resources and occupancy");
  cmd->add_option("kernel", o->kernel, "the kernel (.cu for the GPU, .cpp for the CPU)")->required();
  cmd->add_option("--arch", o->arch, "GPU architecture, e.g. sm_90 (default: the local GPU's, else sm_90)");
  cmd->add_flag("--json", o->json, "print one JSON object (the compile report and the build's facts)");
  cmd->add_option("--python", o->python, "torch form: the Python interpreter that imports torch (default: $HONE_PYTHON, else search)");
  cmd->add_option("--timeout", o->timeout_s, "seconds per compiler command before it is killed")->check(CLI::PositiveNumber);
  cmd->add_option("--compile-commands", o->compile_commands,
                  "the project's compile_commands.json (or its folder); default: found walking up from the file");
  cmd->add_option("--flag", o->flags, "an extra compiler flag (repeatable), e.g. --flag=-DTILE=64 --flag=-maxrregcount=64");
  cmd->add_flag("--no-cache", o->no_cache, "rebuild even when an identical build is cached (replaces it)");
  cmd->add_flag("--no-sandbox", o->no_sandbox, "compile unconfined (the include check and the private build folder are skipped)");
  cmd->callback([o, &registry] { registry.set_exit_code(run_build(*o)); });
}

}  // namespace hone::cli
