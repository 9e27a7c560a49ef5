// profile/rules.cpp: the rule runner, theoretical occupancy of a launch, and shared helpers.
#include "profile/rules.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

namespace hone::profile {

std::optional<OccupancyEstimate> theoretical_occupancy(int registers_per_thread, int threads_per_block,
                                                       int shared_bytes_per_block, const DeviceLimits& d) {
  if (threads_per_block <= 0 || d.max_warps_per_sm <= 0) return std::nullopt;
  int warps = (threads_per_block + 31) / 32;
  // Limits in blocks per SM, in the order that wins a tie (a tie with warps is not a register problem).
  std::vector<std::pair<std::string, int>> limits = {{"warps", d.max_warps_per_sm / warps},
                                                     {"blocks", d.max_blocks_per_sm}};
  if (registers_per_thread > 0) {
    int per_warp = (registers_per_thread * 32 + 255) / 256 * 256;  // allocated per warp in units of 256
    limits.emplace_back("registers", (d.registers_per_sm / per_warp) / warps);
  }
  if (shared_bytes_per_block > 0 && d.shared_bytes_per_sm > 0)
    limits.emplace_back("shared_memory", d.shared_bytes_per_sm / (shared_bytes_per_block + 1024));  // 1 KB reserved per block
  auto best = std::min_element(limits.begin(), limits.end(), [](auto& a, auto& b) { return a.second < b.second; });
  OccupancyEstimate e;
  e.blocks_per_sm = std::max(0, best->second);
  e.limited_by = best->first;
  e.pct = 100.0 * std::min(e.blocks_per_sm * warps, d.max_warps_per_sm) / d.max_warps_per_sm;
  return e;
}

std::optional<SourceLocation> kernel_location(const KernelRuleInput& in) {
  if (!in.static_facts || !in.static_facts->line || in.kernel_file.empty()) return std::nullopt;
  return SourceLocation{in.kernel_file, *in.static_facts->line, "kernel"};
}

std::optional<SourceLocation> rule_location(const KernelRuleInput& in, const std::string& id) {
  struct Sites {
    const char* id;
    std::vector<AccessKind> kinds;
    int max_bits;
  };
  static const Sites kSites[] = {
      {"uncoalesced_loads", {AccessKind::GlobalLoad}, 0},
      {"uncoalesced_stores", {AccessKind::GlobalStore}, 0},
      {"narrow_loads", {AccessKind::GlobalLoad}, 32},
      {"local_memory", {AccessKind::LocalLoad, AccessKind::LocalStore}, 0},
      {"bank_conflicts", {AccessKind::SharedLoad, AccessKind::SharedStore}, 0},
      {"divergent_branches", {AccessKind::DivergentBranch}, 0},
  };
  if (in.ptx_lines && !in.kernel_file.empty()) {
    const std::string& mangled = in.static_facts && !in.static_facts->mangled.empty() ? in.static_facts->mangled : in.kernel->record.mangled;
    for (const Sites& s : kSites) {
      if (id != s.id) continue;
      std::vector<int> lines = in.ptx_lines->lines(mangled, s.kinds, s.max_bits);
      if (!lines.empty()) return SourceLocation{in.kernel_file, lines.front(), "line", std::move(lines)};
    }
  }
  return kernel_location(in);
}

Suggestion make_suggestion(const KernelRuleInput& in, std::string id, std::string title, std::string detail) {
  Suggestion s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.detail = std::move(detail);
  s.kernel = base_kernel_name(in.kernel->record.name);
  s.location = rule_location(in, s.id);
  return s;
}

std::vector<Suggestion> run_rules(const std::vector<KernelRuleInput>& kernels, const CallRuleInput& call) {
  using KernelRule = std::optional<Suggestion> (*)(const KernelRuleInput&);
  using CallRule = std::optional<Suggestion> (*)(const CallRuleInput&);
  static constexpr KernelRule kKernelRules[] = {
      rule_uncoalesced_loads,   rule_uncoalesced_stores,      rule_narrow_loads, rule_local_memory,
      rule_bank_conflicts,      rule_low_bandwidth,           rule_occupancy_registers,
      rule_occupancy_shared_memory, rule_small_grid,          rule_tensor_cores_unused,
      rule_divergent_branches,  rule_latency_bound};
  static constexpr CallRule kCallRules[] = {rule_redundant_dram_traffic, rule_time_outside_own_kernels};
  std::vector<Suggestion> out;
  for (const KernelRuleInput& k : kernels)
    for (KernelRule rule : kKernelRules)
      if (auto s = rule(k)) out.push_back(std::move(*s));
  for (CallRule rule : kCallRules)
    if (auto s = rule(call)) out.push_back(std::move(*s));
  std::stable_sort(out.begin(), out.end(), [](const Suggestion& a, const Suggestion& b) { return a.saved_us > b.saved_us; });
  return out;
}

}  // namespace hone::profile
