// cli/cmd_build.cpp: `hone build KERNEL [--arch sm_XX] [--json] [--python PATH] [--timeout S]
// [--flag F]... [--no-cache]` compiles a kernel through the toolchain's KernelBuilder (the same
// one the engine uses) and prints its diagnostics and per-kernel static facts, as text like a
// compiler or as one JSON object. Exit 0 built, 1 did not compile, 2 bad usage or missing tool.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "toolchain/kernel_builder.h"

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
  bool json = false;
  bool no_cache = false;
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

void print_text(const toolchain::BuildResult& r, const std::string& kernel) {
  for (const auto& d : r.report.diagnostics) {
    std::cerr << d.file;
    if (d.line > 0) std::cerr << ":" << d.line;
    if (d.line > 0 && d.column > 0) std::cerr << ":" << d.column;
    std::cerr << ": " << protocol::to_string(d.severity) << ": " << d.message << " [" << protocol::to_string(d.source) << "]\n";
  }
  if (!r.ok()) {
    if (!r.error.empty() && r.report.diagnostics.empty()) std::cerr << "hone build: " << r.error << "\n";
    std::cerr << "hone build: " << kernel << " did not compile (" << r.report.count(protocol::Severity::Error)
              << " error(s))\n";
    return;
  }
  std::ostringstream secs;
  secs << std::fixed << std::setprecision(2) << r.seconds;
  std::cout << "built " << kernel << " (" << (r.form ? toolchain::to_string(*r.form) : "?") << " form, "
            << r.report.arch << ") in " << secs.str() << " s" << (r.cached ? " (cached)" : "") << "\n";
  std::cout << "  library " << r.library.string() << "\n";
  if (!r.op_namespace.empty()) std::cout << "  op torch.ops." << r.op_namespace << ".forward\n";
  if (!r.report.kernels.empty() && !r.report.sass_available)
    std::cout << "  (no cuobjdump here: instruction facts from PTX only)\n";
  for (const auto& k : r.report.kernels) print_kernel(std::cout, k);
}

nlohmann::json to_json(const toolchain::BuildResult& r, const std::string& kernel) {
  nlohmann::json j{{"kernel", kernel},
                   {"outcome", toolchain::to_string(r.outcome)},
                   {"language", toolchain::to_string(r.language)},
                   {"form", r.form ? std::string(toolchain::to_string(*r.form)) : "unknown"},
                   {"compile", r.report},
                   {"stage_seconds", r.stage_seconds}};
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.key.empty()) j["key"] = r.key;
  if (!r.kernel_hash.empty()) j["kernel_hash"] = r.kernel_hash;
  if (!r.op_namespace.empty()) j["op_namespace"] = r.op_namespace;
  if (!r.torch_headers.empty()) j["torch_headers"] = r.torch_headers;
  if (!r.nvcc_overlap.empty()) j["nvcc"] = r.nvcc_overlap;
  j["own_kernels"] = r.own_kernels;
  return j;
}

int run_build(const BuildOptions& o) {
  toolchain::BuildRequest req;
  req.kernel = o.kernel;
  if (!o.arch.empty()) req.arch = o.arch;
  if (!o.python.empty()) req.python = o.python;
  req.timeout = std::chrono::seconds(static_cast<long>(o.timeout_s));
  req.extra_flags = o.flags;
  req.use_cache = !o.no_cache;
  toolchain::BuildResult r;
  try {
    r = toolchain::KernelBuilder().build(req);
  } catch (const std::exception& e) {
    std::cerr << "hone build: " << e.what() << "\n";
    return 2;
  }
  if (o.json) std::cout << to_json(r, o.kernel).dump(2) << "\n";
  else if (r.outcome == toolchain::BuildOutcome::BadInput || r.outcome == toolchain::BuildOutcome::MissingTool)
    std::cerr << "hone build: " << r.error << "\n";
  else print_text(r, o.kernel);
  switch (r.outcome) {
    case toolchain::BuildOutcome::Built: return 0;
    case toolchain::BuildOutcome::CompileError:
    case toolchain::BuildOutcome::TimedOut:
    case toolchain::BuildOutcome::Cancelled: return 1;
    case toolchain::BuildOutcome::BadInput:
    case toolchain::BuildOutcome::MissingTool: return 2;
  }
  return 2;
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
  cmd->add_option("--flag", o->flags, "an extra compiler flag (repeatable), e.g. --flag=-DTILE=64 --flag=-maxrregcount=64");
  cmd->add_flag("--no-cache", o->no_cache, "rebuild even when an identical build is cached (replaces it)");
  cmd->callback([o, &registry] { registry.set_exit_code(run_build(*o)); });
}

}  // namespace hone::cli
