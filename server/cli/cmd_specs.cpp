// cli/cmd_specs.cpp: `hone specs [--gpu NAME] [--all] [--json] [--measure]`: the GPU spec table
// (peak rates with their sources), the local GPU's row when nvidia-smi sees one, and its measured
// ceilings when cached (or measured now with --measure). Works without a GPU.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/engine.h"
#include "protocol/verdict_text.h"

namespace hone::cli {
namespace {

using nlohmann::json;
using protocol::format_fixed;

std::string tera(double v) { return format_fixed(v / 1e12, v >= 1e14 ? 0 : 1) + "T"; }

void print_spec(const protocol::GpuSpec& s, const std::optional<protocol::MeasuredCeilings>& measured, bool local) {
  std::cout << s.name << " (" << s.key << ", " << s.arch << ", " << s.chip << ")" << (local ? "  <- this machine's GPU" : "") << "\n";
  std::cout << "  SMs " << s.sm_count;
  if (s.boost_clock_hz > 0) std::cout << " · boost " << format_fixed(s.boost_clock_hz / 1e6, 0) << " MHz";
  std::cout << " · DRAM " << format_fixed(s.peak_dram_bytes_per_s / 1e12, 2) << " TB/s · memory " << s.memory_bytes / 1000000000ull << " GB";
  std::cout << " · L2 " << (s.l2_bytes ? std::to_string(s.l2_bytes >> 20) + " MiB" : std::string("not published"));
  std::cout << " · shared memory " << (s.shared_bytes_per_sm >> 10) << " KiB/SM (" << (s.shared_bytes_per_block >> 10)
            << " KiB/block) · " << s.max_warps_per_sm << " warps/SM\n";
  std::cout << "  peak FLOP/s (dense):";
  for (protocol::Precision p : protocol::kAllPrecisions)
    if (auto v = s.peak_flops(p)) std::cout << " " << protocol::precision_name(p) << " " << tera(*v);
  std::cout << "\n";
  if (measured) {
    std::cout << "  measured " << measured->measured_at << " (torch " << measured->torch_version << "):";
    if (measured->dram_copy_bytes_per_s) std::cout << " DRAM copy " << format_fixed(*measured->dram_copy_bytes_per_s / 1e12, 2) << " TB/s";
    for (const auto& [p, v] : measured->matmul_flops_per_s) std::cout << " · " << protocol::precision_name(p) << " matmul " << tera(v);
    std::cout << "\n";
  }
  std::cout << "  source: " << s.source << "\n";
}

int run_specs(const std::string& gpu, bool all, bool as_json, bool measure) {
  Engine::Specs specs;
  try {
    Engine engine(EngineOptions{});
    specs = engine.gpu_specs({gpu, all, measure});
  } catch (const EngineError& e) {
    std::cerr << (e.kind() == EngineError::Kind::NoGpu ? "hone: " : "hone: error: ") << e.what() << "\n";
    if (!e.detail().empty()) std::cerr << e.detail() << "\n";
    return 2;
  }
  if (specs.local_unknown)
    std::cerr << "hone: this machine's GPU (" << specs.local_gpu << ") is not in the spec table; showing the table\n";
  if (specs.local_gpu.empty() && gpu.empty())
    std::cerr << "hone: no GPU found on this machine (nvidia-smi sees none); showing every GPU in the spec table "
                 "(`hone specs --gpu NAME` shows one)\n";
  json out = json::array();
  for (const Engine::SpecRow& row : specs.rows) {
    if (as_json) {
      json j = row.spec;
      j["local"] = row.local;
      j["measured_ceilings"] = row.measured ? json(*row.measured) : json();
      out.push_back(j);
    } else {
      print_spec(row.spec, row.measured, row.local);
    }
  }
  if (as_json) std::cout << (gpu.empty() ? out : out[0]).dump(1) << std::endl;
  return 0;
}

}  // namespace

void add_specs_command(CLI::App& app, CommandRegistry& registry) {
  struct State {
    std::string gpu;
    bool all = false;
    bool json = false;
    bool measure = false;
  };
  auto state = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("specs", "GPU peak rates (spec table with sources) and measured ceilings");
  cmd->add_option("--gpu", state->gpu, "A GPU by name or key (h100-sxm, h100-pcie, h200, a100-40gb, l40s, rtx-4090, b200, ...)");
  cmd->add_flag("--all", state->all, "Every GPU in the table, even when this machine has one");
  cmd->add_flag("--json", state->json, "JSON instead of text");
  cmd->add_flag("--measure", state->measure, "Measure this GPU's ceilings now (copy bandwidth, matmul rates) and cache them");
  cmd->callback([state, &registry] {
    registry.set_exit_code(run_specs(state->gpu, state->all, state->json, state->measure));
  });
}

}  // namespace hone::cli
