// profile/rules.h: the suggestion rules. Each rule is a small pure function from what was measured
// about one kernel (or the whole forward call) to at most one Suggestion carrying its evidence
// (metric values against the rule's threshold), an estimated gain where one can be estimated, and
// the kernel's source line when the build report knows it. run_rules applies them all and ranks
// the suggestions by estimated time saved. Any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profile/kernel_profile.h"
#include "profile/ptx_lines.h"
#include "profile/roofline.h"
#include "protocol/build_report.h"
#include "protocol/verdict_text.h"

namespace hone::profile {

// Thresholds (named so the evidence can quote them).
inline constexpr double kCoalescedPct = 60;         // bytes used per 32-byte sector, % (100 = all used)
inline constexpr double kNarrowLoadSharePct = 80;   // share of global loads 32 bits wide or narrower
inline constexpr double kLowOccupancyPct = 50;      // theoretical or achieved occupancy
inline constexpr double kBankConflictWavefronts = 1.5;  // shared wavefronts per request (1 = none)
inline constexpr double kDivergentPct = 20;         // branch targets taken by only part of a warp
inline constexpr double kLowBandwidthPct = 60;      // of the DRAM ceiling, for a memory-bound kernel
inline constexpr double kRedundantTrafficRatio = 1.5;   // DRAM bytes over the compulsory bytes
inline constexpr double kOwnSharePct = 80;          // GPU time in the candidate's own kernels
inline constexpr double kMatmulLikeIntensity = 4;   // FLOPs per DRAM byte that suggest matmul-like work

using Evidence = protocol::SuggestionEvidence;
using protocol::EstimatedGain;
using protocol::SourceLocation;
using protocol::Suggestion;

// Hardware limits the rules need, from the device facts or the spec table.
struct DeviceLimits {
  int sm_count = 0;
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int shared_bytes_per_sm = 0;
};

struct KernelRuleInput {
  const ProfiledKernel* kernel = nullptr;
  const protocol::KernelStatic* static_facts = nullptr;  // null without a build report entry
  std::optional<RooflinePoint> point;
  const Ceilings* ceilings = nullptr;
  DeviceLimits device;
  std::string task_dtype;  // torch dtype name of the task's first input: "float32", "bfloat16", ...
  std::string kernel_file;
  const PtxSourceLines* ptx_lines = nullptr;  // null when the kernel's PTX was not read
};

struct CallRuleInput {
  const ProfiledCall* call = nullptr;
  double compulsory_bytes = 0;        // the task's input + output bytes
  std::optional<RooflinePoint> point;  // the own kernels together
};

// Theoretical occupancy (%) of a launch and what limits it ("registers", "shared_memory",
// "warps", "blocks"); nullopt for an empty block.
struct OccupancyEstimate {
  double pct = 0;
  int blocks_per_sm = 0;
  std::string limited_by;
};
std::optional<OccupancyEstimate> theoretical_occupancy(int registers_per_thread, int threads_per_block,
                                                       int shared_bytes_per_block, const DeviceLimits& d);

// The kernel rules (rules_memory.cpp, rules_compute.cpp).
std::optional<Suggestion> rule_uncoalesced_loads(const KernelRuleInput& in);
std::optional<Suggestion> rule_uncoalesced_stores(const KernelRuleInput& in);
std::optional<Suggestion> rule_narrow_loads(const KernelRuleInput& in);
std::optional<Suggestion> rule_local_memory(const KernelRuleInput& in);
std::optional<Suggestion> rule_bank_conflicts(const KernelRuleInput& in);
std::optional<Suggestion> rule_low_bandwidth(const KernelRuleInput& in);
std::optional<Suggestion> rule_occupancy_registers(const KernelRuleInput& in);
std::optional<Suggestion> rule_occupancy_shared_memory(const KernelRuleInput& in);
std::optional<Suggestion> rule_small_grid(const KernelRuleInput& in);
std::optional<Suggestion> rule_tensor_cores_unused(const KernelRuleInput& in);
std::optional<Suggestion> rule_divergent_branches(const KernelRuleInput& in);
std::optional<Suggestion> rule_latency_bound(const KernelRuleInput& in);
// The call rules.
std::optional<Suggestion> rule_redundant_dram_traffic(const CallRuleInput& in);
std::optional<Suggestion> rule_time_outside_own_kernels(const CallRuleInput& in);

// Every kernel rule on every input, then the call rules; ranked by saved_us, then by rule order.
std::vector<Suggestion> run_rules(const std::vector<KernelRuleInput>& kernels, const CallRuleInput& call);

// Shared by the rule files: the kernel's source location; the lines of the instructions rule `id`
// is about (falling back to the kernel's line); and a suggestion with the common fields.
std::optional<SourceLocation> kernel_location(const KernelRuleInput& in);
std::optional<SourceLocation> rule_location(const KernelRuleInput& in, const std::string& id);
Suggestion make_suggestion(const KernelRuleInput& in, std::string id, std::string title, std::string detail);
using protocol::format_fixed;

}  // namespace hone::profile
