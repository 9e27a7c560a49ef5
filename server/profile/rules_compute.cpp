// profile/rules_compute.cpp: the execution rules: occupancy limited by registers or shared
// memory, a grid smaller than the GPU, tensor cores left unused, divergent branches, latency-bound
// kernels, and (for the whole call) GPU time spent outside the candidate's own kernels.
#include <algorithm>

#include "profile/rules.h"

namespace hone::profile {
namespace {

double saved(double us, double speedup) { return speedup > 1 ? us - us / speedup : 0; }

std::optional<OccupancyEstimate> launch_occupancy(const KernelRuleInput& in) {
  const KernelLaunch& r = in.kernel->record;
  return theoretical_occupancy(r.registers_per_thread, r.threads_per_block(),
                               r.static_shared_bytes + r.dynamic_shared_bytes, in.device);
}

std::optional<Suggestion> occupancy_limited(const KernelRuleInput& in, const std::string& limit) {
  auto occ = launch_occupancy(in);
  if (!occ || occ->limited_by != limit || occ->pct >= kLowOccupancyPct) return std::nullopt;
  if (in.point && in.point->bound == Bound::compute) return std::nullopt;  // busy anyway
  const KernelLaunch& r = in.kernel->record;
  bool regs = limit == "registers";
  Suggestion s = make_suggestion(
      in, regs ? "occupancy_registers" : "occupancy_shared_memory",
      std::string("Occupancy ") + format_fixed(occ->pct, 1) + "% limited by " + (regs ? "registers (" : "shared memory (") +
          (regs ? std::to_string(r.registers_per_thread) + " per thread" : std::to_string(r.static_shared_bytes + r.dynamic_shared_bytes) + " bytes per block") +
          "): " + std::to_string(occ->blocks_per_sm) + " block(s) of " + std::to_string(r.threads_per_block()) + " threads per SM",
      regs ? "Few resident warps leave the SM idle while loads are in flight. Cut register use (fewer live values, "
             "smaller per-thread tiles or unroll factors) or cap it with __launch_bounds__(threads, minBlocks), "
             "watching ptxas for spills."
           : "Few resident blocks leave the SM idle while loads are in flight. Use smaller tiles or fewer pipeline "
             "stages, reuse buffers, or move data that does not need sharing back to registers.");
  if (regs)
    s.evidence.push_back({"registers_per_thread", static_cast<double>(r.registers_per_thread), ">",
                          static_cast<double>(in.device.registers_per_sm) / (in.device.max_warps_per_sm * 32.0), "registers"});
  else
    s.evidence.push_back({"shared_bytes_per_block", static_cast<double>(r.static_shared_bytes + r.dynamic_shared_bytes), ">",
                          static_cast<double>(in.device.shared_bytes_per_sm) / 2.0, "bytes"});
  s.evidence.push_back({"theoretical_occupancy_pct", occ->pct, "<", kLowOccupancyPct, "%"});
  if (auto a = in.kernel->derived.achieved_occupancy_pct)
    s.evidence.push_back({"sm__warps_active.avg.pct_of_peak_sustained_active", *a, "<", kLowOccupancyPct, "%"});
  return s;
}

}  // namespace

std::optional<Suggestion> rule_occupancy_registers(const KernelRuleInput& in) { return occupancy_limited(in, "registers"); }

std::optional<Suggestion> rule_occupancy_shared_memory(const KernelRuleInput& in) {
  return occupancy_limited(in, "shared_memory");
}

std::optional<Suggestion> rule_small_grid(const KernelRuleInput& in) {
  const KernelLaunch& r = in.kernel->record;
  if (in.device.sm_count <= 0 || r.blocks() >= in.device.sm_count) return std::nullopt;
  double blocks = static_cast<double>(r.blocks());
  Suggestion s = make_suggestion(
      in, "small_grid",
      "Grid of " + std::to_string(r.blocks()) + " blocks on " + std::to_string(in.device.sm_count) + " SMs: " +
          std::to_string(in.device.sm_count - r.blocks()) + " SMs have no work",
      "Each block runs on one SM, so a grid smaller than the SM count leaves SMs idle. Split the work into more, "
      "smaller blocks (e.g. one block per row tile instead of per batch), or split the reduction dimension "
      "across blocks and combine the partial results.");
  s.evidence.push_back({"blocks", blocks, "<", static_cast<double>(in.device.sm_count), "blocks"});
  double speedup = static_cast<double>(in.device.sm_count) / blocks;
  s.gain = EstimatedGain{speedup, "the same work spread over every SM (upper bound)"};
  s.saved_us = saved(r.duration_us, speedup);
  return s;
}

std::optional<Suggestion> rule_tensor_cores_unused(const KernelRuleInput& in) {
  if (in.task_dtype != "float16" && in.task_dtype != "bfloat16") return std::nullopt;
  const DerivedMetrics& d = in.kernel->derived;
  bool static_tensor = in.static_facts && ((in.static_facts->sass && in.static_facts->sass->tensor_core) ||
                                           (in.static_facts->ptx && in.static_facts->ptx->tensor_core));
  Precision tensor = in.task_dtype == "float16" ? Precision::fp16_tensor : Precision::bf16_tensor;
  // Evidence of tensor-core work: the tensor pipe's instructions, else the dtype's tensor ops.
  std::optional<double> work = d.tensor_instructions;
  std::string metric = "sm__inst_executed_pipe_tensor.sum";
  if (!work) {
    auto it = d.flops.find(tensor);
    if (it != d.flops.end()) {
      work = it->second;
      metric = tensor == Precision::fp16_tensor ? "sm__ops_path_tensor_src_fp16.sum" : "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
    }
  }
  if (static_tensor || !work || *work > 0) return std::nullopt;
  if (!in.point || in.point->flops <= 0 || in.point->arithmetic_intensity < kMatmulLikeIntensity) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "tensor_cores_unused",
      "Matmul-like " + in.task_dtype + " work (" + format_fixed(in.point->arithmetic_intensity, 1) +
          " FLOP/byte) runs without tensor cores",
      "The task's dtype runs on tensor cores at many times the scalar rate. Compute the tile products with "
      "mma.sync / WMMA (nvcuda::wmma::mma_sync on 16x16x16 fragments), or wgmma on sm_90, accumulating in fp32.");
  s.evidence.push_back({metric, *work, "==", 0, metric.find("ops_path") != std::string::npos ? "FLOP" : "instructions"});
  s.evidence.push_back({"arithmetic_intensity", in.point->arithmetic_intensity, ">=", kMatmulLikeIntensity, "FLOP/byte"});
  if (in.ceilings && in.point->achieved_flops_per_s > 0)
    if (auto peak = in.ceilings->flops_for(tensor)) {
      double attainable = std::min(peak->value, in.point->arithmetic_intensity * in.point->peak_bytes_per_s);
      double speedup = attainable / in.point->achieved_flops_per_s;
      if (speedup > 1) {
        s.gain = EstimatedGain{speedup, "the roofline at this intensity with the " + std::string(precision_name(tensor)) +
                                            " ceiling (" + peak->source + ")"};
        s.saved_us = saved(in.kernel->record.duration_us, speedup);
      }
    }
  return s;
}

std::optional<Suggestion> rule_divergent_branches(const KernelRuleInput& in) {
  const DerivedMetrics& d = in.kernel->derived;
  if (!d.divergent_branch_pct || *d.divergent_branch_pct <= kDivergentPct) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "divergent_branches", format_fixed(*d.divergent_branch_pct, 1) + "% of branches diverge within a warp",
      "When threads of a warp take different paths, the warp runs both paths one after the other. Make branch "
      "conditions uniform per warp (assign work so a warp's 32 threads agree), hoist boundary checks out of "
      "inner loops, or replace short branches with arithmetic selects.");
  s.evidence.push_back({"smsp__sass_branch_targets_threads_divergent.sum / smsp__sass_branch_targets.sum",
                        *d.divergent_branch_pct, ">", kDivergentPct, "%"});
  if (d.active_threads_per_instruction)
    s.evidence.push_back({"active_threads_per_instruction", *d.active_threads_per_instruction, "<", 32, "threads"});
  return s;
}

std::optional<Suggestion> rule_latency_bound(const KernelRuleInput& in) {
  if (!in.point || in.point->bound != Bound::latency) return std::nullopt;
  const RooflinePoint& p = *in.point;
  // Under the memory roof, low_bandwidth says it better.
  if (p.peak_flops_per_s <= 0 || p.arithmetic_intensity < p.ridge_intensity) return std::nullopt;
  Suggestion s = make_suggestion(
      in, "latency_bound",
      "Latency-bound: neither DRAM (" + format_fixed(p.memory_pct, 1) + "%) nor compute (" + format_fixed(p.compute_pct, 1) +
          "%) is busy",
      "The kernel waits on dependencies rather than on a saturated unit. Give each SM more independent work: "
      "more resident warps, several independent loads or accumulators per thread (ILP), fewer __syncthreads() "
      "per unit of work; for a kernel of a few microseconds, fuse it with its neighbours to amortise the launch.");
  s.evidence.push_back({"dram_pct_of_ceiling", p.memory_pct, "<", kBusyPct, "%"});
  s.evidence.push_back({"compute_pct_of_ceiling", p.compute_pct, "<", kBusyPct, "%"});
  if (auto a = in.kernel->derived.achieved_occupancy_pct)
    s.evidence.push_back({"sm__warps_active.avg.pct_of_peak_sustained_active", *a, "", 0, "%"});
  return s;
}

std::optional<Suggestion> rule_time_outside_own_kernels(const CallRuleInput& in) {
  if (!in.call) return std::nullopt;
  double own = in.call->own_us(), other = in.call->library_us() + in.call->copy_us();
  double total = own + other;
  if (total <= 0) return std::nullopt;
  double share = 100.0 * own / total;
  if (share >= kOwnSharePct) return std::nullopt;
  std::vector<const ProfiledKernel*> library;
  for (const ProfiledKernel& k : in.call->kernels)
    if (!k.record.own) library.push_back(&k);
  std::sort(library.begin(), library.end(), [](auto* a, auto* b) { return a->record.duration_us > b->record.duration_us; });
  std::string names;
  for (std::size_t i = 0; i < library.size() && i < 3; ++i)
    names += (i ? ", " : "") + base_kernel_name(library[i]->record.name) + " (" + format_fixed(library[i]->record.duration_us, 1) + " us)";
  Suggestion s;
  s.id = "time_outside_own_kernels";
  s.title = "Only " + format_fixed(share, 1) + "% of the GPU time is in the kernel's own kernels";
  s.detail = "The rest goes to library kernels (cuBLAS, ATen) or copies" + (names.empty() ? std::string(".") : ": " + names + ".") +
             " Move that work into your kernels (fuse the elementwise steps, write the output directly instead of "
             "copying it), or check that the remaining library calls are intended.";
  s.evidence.push_back({"own_kernel_share_pct", share, "<", kOwnSharePct, "%"});
  s.evidence.push_back({"library_and_copy_us", other, ">", 0, "us"});
  if (own > 0) {
    s.gain = EstimatedGain{total / own, "the call's GPU time if only the own kernels remained (upper bound)"};
    s.saved_us = other;
  }
  return s;
}

}  // namespace hone::profile
