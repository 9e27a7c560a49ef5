// profile/rules_memory.cpp: the memory rules: uncoalesced and narrow global accesses, local
// memory, shared-memory bank conflicts, low bandwidth of a memory-bound kernel, and (for the whole
// call) DRAM traffic far above the compulsory bytes.
#include <algorithm>

#include "profile/rules.h"

namespace hone::profile {
namespace {

double kernel_us(const KernelRuleInput& in) { return in.kernel->record.duration_us; }

// Saved time when a kernel gets `speedup` times faster.
double saved(double us, double speedup) { return speedup > 1 ? us - us / speedup : 0; }

std::optional<Suggestion> uncoalesced(const KernelRuleInput& in, bool loads) {
  const auto& d = in.kernel->derived;
  std::optional<double> eff = loads ? d.global_load_efficiency_pct : d.global_store_efficiency_pct;
  if (!eff || *eff >= kCoalescedPct || *eff <= 0) return std::nullopt;
  const char* what = loads ? "loads" : "stores";
  std::string metric = std::string("smsp__sass_average_data_bytes_per_sector_mem_global_op_") + (loads ? "ld" : "st") + ".pct";
  Suggestion s = make_suggestion(
      in, loads ? "uncoalesced_loads" : "uncoalesced_stores",
      std::string("Uncoalesced global ") + what + ": only " + format_fixed(*eff, 1) + "% of each 32-byte sector is used",
      std::string("Neighbouring threads of a warp should touch neighbouring addresses, so that each 32-byte "
                  "sector the memory system moves is fully used. Index so that threadIdx.x runs along the "
                  "contiguous dimension, or stage strided or transposed accesses through shared memory."));
  s.evidence.push_back({metric, *eff, "<", kCoalescedPct, "%"});
  double speedup = 100.0 / *eff;
  if (in.point && in.point->bound != Bound::compute) {
    s.gain = EstimatedGain{speedup, std::string("sectors moved per useful byte fall by up to 100/") + format_fixed(*eff, 1) +
                                        " when the " + what + " are fully coalesced (upper bound for a memory-bound kernel)"};
    s.saved_us = saved(kernel_us(in), speedup);
  }
  return s;
}

// Static global-load counts by width, from the SASS when it was read, else the PTX.
const protocol::WidthCounts* load_widths(const KernelRuleInput& in) {
  if (!in.static_facts) return nullptr;
  if (in.static_facts->sass && !in.static_facts->sass->global_loads.empty()) return &in.static_facts->sass->global_loads;
  if (in.static_facts->ptx && !in.static_facts->ptx->global_loads.empty()) return &in.static_facts->ptx->global_loads;
  return nullptr;
}

}  // namespace

std::optional<Suggestion> rule_uncoalesced_loads(const KernelRuleInput& in) { return uncoalesced(in, true); }

std::optional<Suggestion> rule_uncoalesced_stores(const KernelRuleInput& in) { return uncoalesced(in, false); }

std::optional<Suggestion> rule_narrow_loads(const KernelRuleInput& in) {
  const protocol::WidthCounts* widths = load_widths(in);
  if (!widths) return std::nullopt;
  std::int64_t total = 0, narrow = 0, wide = 0;
  for (const auto& [bits, n] : *widths) {
    total += n;
    if (bits <= 32) narrow += n;
    if (bits >= 128) wide += n;
  }
  if (total == 0 || wide > 0) return std::nullopt;
  double share = 100.0 * static_cast<double>(narrow) / static_cast<double>(total);
  if (share < kNarrowLoadSharePct) return std::nullopt;
  // Only worth it where memory is the limit and the loads are already coalesced.
  if (in.point && in.point->bound == Bound::compute) return std::nullopt;
  const auto& eff = in.kernel->derived.global_load_efficiency_pct;
  if (eff && *eff < kCoalescedPct) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "narrow_loads", "Global loads are 4 bytes wide or narrower: 16-byte vector loads would cut load instructions 4x",
      "Load float4 / int4 (or __half2 x4) per thread where the data is 16-byte aligned and its length a multiple of "
      "4 elements, with a scalar tail loop. Fewer, wider loads keep more bytes in flight per instruction, which "
      "memory-bound kernels need to reach full bandwidth.");
  s.evidence.push_back({"static_global_loads_32_bit_or_narrower_pct", share, ">=", kNarrowLoadSharePct, "%"});
  s.evidence.push_back({"static_global_loads_128_bit", static_cast<double>(wide), "==", 0, "instructions"});
  return s;
}

std::optional<Suggestion> rule_local_memory(const KernelRuleInput& in) {
  double spill = 0;
  if (in.static_facts) spill = static_cast<double>(in.static_facts->spill_store_bytes.value_or(0) + in.static_facts->spill_load_bytes.value_or(0));
  double local_insts = in.kernel->derived.local_memory_instructions.value_or(0);
  int local_bytes = in.kernel->record.local_bytes_per_thread;
  if (spill <= 0 && local_insts <= 0 && local_bytes <= 0) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "local_memory",
      spill > 0 ? "Registers spill to local memory (" + format_fixed(spill, 0) + " bytes of spill traffic per thread)"
                : "The kernel uses local memory (" + std::to_string(local_bytes) + " bytes per thread)",
      "Local memory lives in DRAM behind the L1 cache: every spill or local-array access is a memory round trip. "
      "Reduce live values (smaller unroll factors or tiles), index arrays only with compile-time constants so they "
      "stay in registers, or relax __launch_bounds__ / -maxrregcount if it forces spills.");
  if (spill > 0) s.evidence.push_back({"ptxas_spill_bytes", spill, ">", 0, "bytes"});
  if (local_insts > 0) s.evidence.push_back({"smsp__sass_inst_executed_op_local_ld.sum + _st.sum", local_insts, ">", 0, "instructions"});
  if (local_bytes > 0) s.evidence.push_back({"local_bytes_per_thread", static_cast<double>(local_bytes), ">", 0, "bytes"});
  return s;
}

std::optional<Suggestion> rule_bank_conflicts(const KernelRuleInput& in) {
  auto w = in.kernel->derived.shared_wavefronts_per_request;
  if (!w || *w <= kBankConflictWavefronts) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "bank_conflicts",
      "Shared-memory bank conflicts: " + format_fixed(*w, 2) + " wavefronts per shared-memory request (1 = conflict-free)",
      "Threads of a warp that hit different addresses in the same one of the 32 banks are served one after "
      "another. Pad shared arrays (e.g. tile[32][33] instead of [32][32]) or swizzle the index so a warp's accesses "
      "fall in distinct banks. (128-bit accesses naturally take up to 4 wavefronts.)");
  s.evidence.push_back({"shared_wavefronts_per_request", *w, ">", kBankConflictWavefronts, "wavefronts"});
  return s;
}

std::optional<Suggestion> rule_low_bandwidth(const KernelRuleInput& in) {
  if (!in.point || in.point->dram_bytes <= 0) return std::nullopt;
  const RooflinePoint& p = *in.point;
  bool memory_side = p.peak_flops_per_s <= 0 || p.arithmetic_intensity < p.ridge_intensity;
  if (!memory_side || p.memory_pct >= kLowBandwidthPct) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "low_bandwidth",
      "Memory-bound but only at " + format_fixed(p.memory_pct, 1) + "% of the DRAM ceiling (" +
          format_fixed(p.achieved_bytes_per_s / 1e9, 0) + " of " + format_fixed(p.peak_bytes_per_s / 1e9, 0) + " GB/s)",
      "This kernel's arithmetic intensity puts it under the memory roof, so its time should be bytes over "
      "bandwidth. Keep more bytes in flight: more resident warps or more independent loads per thread (unrolling, "
      "vector loads), enough blocks to fill every SM, and no serialising dependencies between loads.");
  s.evidence.push_back({"dram_pct_of_ceiling", p.memory_pct, "<", kLowBandwidthPct, "%"});
  s.evidence.push_back({"arithmetic_intensity", p.arithmetic_intensity, "<", p.ridge_intensity, "FLOP/byte"});
  double speedup = std::max(1.0, 90.0 / p.memory_pct);
  s.gain = EstimatedGain{speedup, "moving the same bytes at 90% of the measured DRAM ceiling"};
  s.saved_us = saved(kernel_us(in), speedup);
  return s;
}

std::optional<Suggestion> rule_redundant_dram_traffic(const CallRuleInput& in) {
  if (!in.call || in.compulsory_bytes <= 0) return std::nullopt;
  double bytes = 0, own_us = 0;
  for (const ProfiledKernel& k : in.call->kernels) {
    if (!k.record.own) continue;
    auto b = k.derived.dram_bytes();
    if (!b) return std::nullopt;
    bytes += *b;
    own_us += k.record.duration_us;
  }
  double ratio = bytes / in.compulsory_bytes;
  if (ratio <= kRedundantTrafficRatio) return std::nullopt;
  Suggestion s;
  s.id = "redundant_dram_traffic";
  s.title = "The kernels move " + format_fixed(ratio, 1) + "x the compulsory DRAM bytes (" + format_fixed(bytes / 1e6, 1) + " MB for " +
            format_fixed(in.compulsory_bytes / 1e6, 1) + " MB of inputs and outputs)";
  s.detail = "Data is read or written more often than the task needs: intermediate results round-trip through "
             "DRAM between kernels, or tiles are re-read without reuse. Fuse the kernels so intermediates stay in "
             "registers or shared memory, and reuse each loaded tile for all the outputs that need it.";
  s.evidence.push_back({"dram__bytes_read.sum + dram__bytes_write.sum", bytes, ">", kRedundantTrafficRatio * in.compulsory_bytes, "bytes"});
  s.evidence.push_back({"dram_bytes_over_compulsory", ratio, ">", kRedundantTrafficRatio, "x"});
  const auto& p = in.point;
  if (p && (p->peak_flops_per_s <= 0 || p->arithmetic_intensity < p->ridge_intensity)) {
    s.gain = EstimatedGain{ratio, "under the memory roof time falls with traffic: at best the compulsory bytes"};
    s.saved_us = saved(own_us, ratio);
  }
  return s;
}

}  // namespace hone::profile
