// cupti/metric_sets.cpp: the default and full metric lists (names as in Nsight Compute; checked
// offline against GH100, GA100, AD102, GB100 and GB202 with the Profiler Host API, see
// tests/cupti/host_query_test.cpp).
#include "metric_sets.h"

#include <stdexcept>

namespace hone::cupti {
namespace {

void add(std::vector<MetricChoice>& out, std::initializer_list<const char*> names) {
  MetricChoice c;
  for (const char* n : names) c.names.emplace_back(n);
  out.push_back(std::move(c));
}

// Tensor-core operation counters for a dtype (math ops = FLOPs for MMA), GH100 name first. For
// fp16 on GH100 the all-paths counter needs 2 passes alone; when it does not fit the budget the
// mma.sync path (HMMA, fp32 accumulate) is collected instead, which misses wgmma (HGMMA) work:
// the report's "collected" map names what was collected.
MetricChoice tensor_ops(std::string_view dtype) {
  MetricChoice c;
  if (dtype == "fp16")
    c.names = {"sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_fp16_dst_fp32.sum",
               "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum"};
  if (dtype == "bf16") c.names = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum"};
  if (dtype == "fp32") c.names = {"sm__ops_path_tensor_src_tf32_dst_fp32.sum"};
  if (dtype == "fp64") c.names = {"sm__ops_path_tensor_src_fp64.sum"};
  if (dtype == "fp8") c.names = {"sm__ops_path_tensor_src_fp8.sum"};
  if (dtype == "int8") c.names = {"sm__ops_path_tensor_src_int8.sum"};
  return c;
}

MetricChoice peak_of(const MetricChoice& c) {
  MetricChoice p;
  for (const std::string& n : c.names) p.names.push_back(n + ".peak_sustained");
  return p;
}

void add_core(std::vector<MetricChoice>& m, std::string_view dtype) {
  // Hardware counters (one pass on sm_90): time, DRAM traffic, clocks, achieved occupancy.
  add(m, {"gpu__time_duration.sum"});
  add(m, {"dram__bytes_read.sum", "dram__bytes_op_read.sum"});
  add(m, {"dram__bytes_write.sum", "dram__bytes_op_write.sum"});
  add(m, {"sm__cycles_elapsed.avg.per_second"});
  add(m, {"dram__cycles_elapsed.avg.per_second"});
  add(m, {"sm__warps_active.avg.pct_of_peak_sustained_active"});
  // Tensor-core FLOPs of the task's dtype (a hardware counter; it displaces the lower entries
  // of the first pass when it is collected).
  MetricChoice t = tensor_ops(dtype);
  if (!t.names.empty()) m.push_back(t);
  // SASS-instrumented counters (a pass of their own): FLOPs, coalescing, shared-memory
  // wavefronts (bank conflicts), branch divergence, local memory, instruction mix.
  for (const char* op : {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"})
    add(m, {("smsp__sass_thread_inst_executed_op_" + std::string(op) + "_pred_on.sum").c_str()});
  add(m, {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"});
  add(m, {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"});
  add(m, {"smsp__sass_inst_executed_op_global_ld.sum"});
  add(m, {"smsp__sass_inst_executed_op_global_st.sum"});
  add(m, {"smsp__sass_inst_executed_op_shared_ld.sum"});
  add(m, {"smsp__sass_inst_executed_op_shared_st.sum"});
  add(m, {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"});
  add(m, {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"});
  add(m, {"smsp__sass_average_data_bytes_per_wavefront_mem_shared_op_ld.pct"});
  add(m, {"smsp__sass_average_data_bytes_per_wavefront_mem_shared_op_st.pct"});
  add(m, {"smsp__sass_branch_targets.sum"});
  add(m, {"smsp__sass_branch_targets_threads_divergent.sum"});
  add(m, {"smsp__sass_average_branch_targets_threads_uniform.pct"});
  add(m, {"smsp__sass_inst_executed_op_local_ld.sum"});
  add(m, {"smsp__sass_inst_executed_op_local_st.sum"});
  add(m, {"smsp__sass_inst_executed.sum"});
  add(m, {"smsp__sass_thread_inst_executed.sum"});
}

void add_secondary(std::vector<MetricChoice>& m, std::string_view dtype) {
  add(m, {"sm__inst_executed_pipe_tensor.sum"});
  MetricChoice t = tensor_ops(dtype);
  add(m, {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"});
  add(m, {"l1tex__t_sector_hit_rate.pct"});
  add(m, {"lts__t_sector_hit_rate.pct"});
  add(m, {"dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  add(m, {"l1tex__t_bytes.sum"});
  add(m, {"lts__t_bytes.sum"});
  add(m, {"gpc__cycles_elapsed.max"});
  // Peak rates per cycle: constants that cost no pass (roofline ceilings from the device).
  add(m, {"dram__bytes.sum.peak_sustained"});
  add(m, {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"});
  add(m, {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"});
  add(m, {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained"});
  add(m, {"sm__inst_executed_pipe_tensor.sum.peak_sustained"});
  if (!t.names.empty()) m.push_back(peak_of(t));
}

void add_full_only(std::vector<MetricChoice>& m, std::string_view dtype) {
  for (std::string_view d : {"fp16", "bf16", "fp32", "fp64", "fp8", "int8"}) {
    if (d == dtype) continue;
    MetricChoice t = tensor_ops(d);
    m.push_back(t);
    m.push_back(peak_of(t));
  }
  add(m, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  add(m, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  add(m, {"smsp__issue_active.avg.pct_of_peak_sustained_active"});
  add(m, {"smsp__thread_inst_executed_per_inst_executed.ratio"});
  add(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"});
  add(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"});
  for (const char* reason : {"long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "lg_throttle",
                             "math_pipe_throttle", "wait", "not_selected", "selected", "no_instruction",
                             "branch_resolving", "dispatch_stall", "drain", "membar", "imc_miss", "misc",
                             "sleeping", "tex_throttle"})
    add(m, {("smsp__average_warps_issue_stalled_" + std::string(reason) + "_per_issue_active.ratio").c_str()});
}

}  // namespace

std::vector<MetricChoice> metric_candidates(std::string_view set, std::string_view dtype) {
  if (set != "default" && set != "full")
    throw std::invalid_argument("unknown metric set '" + std::string(set) + "' (expected default or full)");
  std::vector<MetricChoice> m;
  add_core(m, dtype);
  add_secondary(m, dtype);
  if (set == "full") add_full_only(m, dtype);
  return m;
}

}  // namespace hone::cupti
