// toolchain/kernel_facts.cpp: ptxas + cubin + PTX + SASS + occupancy per kernel.
#include "toolchain/kernel_facts.h"

#include <algorithm>
#include <map>

#include "support/hash.h"
#include "toolchain/command_runner.h"
#include "toolchain/cubin_constants.h"
#include "toolchain/demangle.h"
#include "toolchain/instruction_facts.h"
#include "toolchain/occupancy.h"
#include "toolchain/ptxas_report.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

std::pair<int, protocol::BlockSizeSource> block_size_of(const SourceFacts& source, const std::string& name) {
  if (const GlobalFunction* g = source.find_global(name); g && g->launch_bounds && *g->launch_bounds > 0)
    return {static_cast<int>(*g->launch_bounds), protocol::BlockSizeSource::LaunchBounds};
  for (const auto& site : source.launches)
    if (site.kernel == name && site.block_threads && *site.block_threads > 0)
      return {static_cast<int>(*site.block_threads), protocol::BlockSizeSource::LaunchSite};
  return {kAssumedBlockSize, protocol::BlockSizeSource::Assumed};
}

}  // namespace

std::optional<int> kernel_line_in_file(const SourceFacts& source, const fs::path& kernel, const std::string& mangled) {
  const GlobalFunction* g = source.find_global(function_base_name(demangle(mangled)));
  if (g == nullptr || g->file != kernel) return std::nullopt;
  return g->line;
}

std::vector<std::string> sass_argv(const fs::path& cuobjdump, const fs::path& cubin) {
  return {cuobjdump.string(), "-sass", cubin.string()};
}

KernelFacts collect_kernel_facts(const KernelFactsInputs& in) {
  KernelFacts out;
  const PtxasReport ptxas = parse_ptxas_verbose(in.ptxas_output);
  std::map<std::string, protocol::InstructionFacts> ptx;
  std::error_code ec;
  if (fs::is_regular_file(in.ptx, ec)) ptx = parse_ptx_facts(read_file(in.ptx));
  const auto constants = cubin_constant_bytes(in.cubin);

  std::map<std::string, protocol::InstructionFacts> sass;
  if (in.cuobjdump && fs::is_regular_file(in.cubin, ec)) {
    const std::vector<std::string> argv = sass_argv(*in.cuobjdump, in.cubin);
    const ProcessResult r = in.sass_run ? *in.sass_run : run_compiler({argv, in.work_dir, in.timeout, in.stop, in.wrap_command});
    if (r.ok()) {
      sass = parse_sass_facts(r.out);
      out.sass_available = true;
    } else {
      out.sass_error = command_line(argv) + ": " + r.describe() + ": " + r.err.substr(0, 2000);
    }
  }

  // Every entry ptxas compiled, then any PTX entry it did not report.
  std::vector<std::string> names = ptxas.order;
  for (const auto& [name, facts] : ptx)
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);

  const auto limits = arch_limits(in.arch);
  for (const auto& mangled : names) {
    protocol::KernelStatic k;
    k.mangled = mangled;
    k.name = demangle(mangled);
    k.line = kernel_line_in_file(*in.source, in.kernel, mangled);
    if (auto it = ptxas.kernels.find(mangled); it != ptxas.kernels.end()) {
      const KernelResources& r = it->second;
      k.registers = r.registers;
      k.spill_store_bytes = r.spill_store_bytes;
      k.spill_load_bytes = r.spill_load_bytes;
      k.static_shared_bytes = r.static_shared_bytes;
      k.stack_frame_bytes = r.stack_frame_bytes;
      k.constant_bytes = r.constant_bytes;
    }
    if (auto it = constants.find(mangled); it != constants.end() && !k.constant_bytes) k.constant_bytes = it->second;
    if (auto it = ptx.find(mangled); it != ptx.end()) k.ptx = it->second;
    if (out.sass_available) {
      auto it = sass.find(mangled);
      k.sass = it != sass.end() ? it->second : protocol::InstructionFacts{};
    }
    if (limits && k.registers) {
      auto [block, source] = block_size_of(*in.source, function_base_name(k.name));
      k.occupancy = theoretical_occupancy(*limits, *k.registers, k.static_shared_bytes.value_or(0), block, source);
    }
    out.kernels.push_back(std::move(k));
  }
  return out;
}

}  // namespace hone::toolchain
