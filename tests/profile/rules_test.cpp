// tests/profile/rules_test.cpp: every suggestion rule against metric fixtures (where it must fire
// and where it must not), the thresholds at their edges, occupancy, and the derived metrics. The
// vec_add_2p26, fma_loop, strided_gather and register_heavy fixtures were recorded on the H200
// (their "fixture" block says when and how); the others are labelled synthetic until recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fixture.h"
#include "profile/kernel_profile.h"
#include "profile/rules.h"

namespace hone::profile {
namespace {

using testing::load_fixture;

std::multiset<std::string> rule_ids(const std::string& fixture) {
  auto f = load_fixture(fixture);
  ProfileOutput built = build_profile_report(f.inputs);
  nlohmann::json rj = built.report;
  std::multiset<std::string> ids;
  for (const auto& s : rj["suggestions"]) ids.insert(s["id"].get<std::string>());
  return ids;
}

const nlohmann::json* find_suggestion(const nlohmann::json& report, const std::string& id) {
  for (const auto& s : report["suggestions"])
    if (s["id"] == id) return &s;
  return nullptr;
}

TEST(RulesOnFixtures, VecAddNearTheCeilingGetsNoSuggestion) {
  EXPECT_EQ(rule_ids("vec_add_2p26"), std::multiset<std::string>{});
}

TEST(RulesOnFixtures, FmaLoopOfOneDependentChainPerThreadIsLatencyBound) {
  // Recorded: 2^33 FLOP in 300.5 us = 28.6 TFLOP/s, 43% of the H200's FP32 peak, DRAM idle.
  EXPECT_EQ(rule_ids("fma_loop"), std::multiset<std::string>{"latency_bound"});
  auto f = load_fixture("fma_loop");
  nlohmann::json r = nlohmann::json(build_profile_report(f.inputs).report);
  const nlohmann::json* s = find_suggestion(r, "latency_bound");
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)["evidence"][1]["metric"], "compute_pct_of_ceiling");
  EXPECT_NEAR((*s)["evidence"][1]["value"].get<double>(), 100.0 * 8589934592.0 / 300.544e-6 / r["ceilings"]["flops_per_s"]["fp32"]["value"].get<double>(), 1e-6);
}

TEST(RulesOnFixtures, StridedGatherGetsTheCoalescingSuggestionWithEvidenceAndLine) {
  auto f = load_fixture("strided_gather");
  nlohmann::json r = nlohmann::json(build_profile_report(f.inputs).report);
  EXPECT_EQ(rule_ids("strided_gather"), (std::multiset<std::string>{"uncoalesced_loads", "redundant_dram_traffic"}));
  const nlohmann::json* s = find_suggestion(r, "uncoalesced_loads");
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)["evidence"][0]["metric"], "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
  EXPECT_NEAR((*s)["evidence"][0]["value"].get<double>(), 12.5, 0.01);
  EXPECT_DOUBLE_EQ((*s)["evidence"][0]["threshold"].get<double>(), kCoalescedPct);
  EXPECT_NEAR((*s)["gain"]["speedup"].get<double>(), 8.0, 0.01);
  EXPECT_TRUE((*s)["location"].is_null()) << "the recording has no build report or PTX (ptx_lines_test covers lines)";
  EXPECT_EQ((*s)["kernel"], "hone::cupti_test::(anonymous namespace)::strided_gather_kernel");
  EXPECT_EQ(r["suggestions"][0]["id"], "uncoalesced_loads") << "ranked first: it saves the most time";
}

TEST(RulesOnFixtures, RegisterHeavyKernelGetsTheOccupancySuggestion) {
  // Recorded: 173 registers per thread, 12.5% achieved occupancy, one serial FMA chain.
  EXPECT_EQ(rule_ids("register_heavy"),
            (std::multiset<std::string>{"occupancy_registers", "latency_bound"}));
  auto f = load_fixture("register_heavy");
  nlohmann::json r = nlohmann::json(build_profile_report(f.inputs).report);
  const nlohmann::json* s = find_suggestion(r, "occupancy_registers");
  ASSERT_TRUE(s);
  EXPECT_NE((*s)["title"].get<std::string>().find("12.5%"), std::string::npos) << (*s)["title"];
  EXPECT_NE((*s)["title"].get<std::string>().find("173 per thread"), std::string::npos);
}

TEST(RulesOnFixtures, Bf16MatmulOnCudaCoresGetsTensorCoresAndSmallGrid) {
  // The naive kernel also re-reads its operands (several times the compulsory bytes), and the
  // recording (H200, 2026-12-01) shows its operand loads poorly coalesced.
  EXPECT_EQ(rule_ids("matmul_bf16_cuda_cores"),
            (std::multiset<std::string>{"tensor_cores_unused", "small_grid", "latency_bound", "redundant_dram_traffic",
                                        "uncoalesced_loads"}));
  auto f = load_fixture("matmul_bf16_cuda_cores");
  nlohmann::json r = nlohmann::json(build_profile_report(f.inputs).report);
  const nlohmann::json* s = find_suggestion(r, "tensor_cores_unused");
  ASSERT_TRUE(s);
  EXPECT_GT((*s)["gain"]["speedup"].get<double>(), 10);
  const nlohmann::json* g = find_suggestion(r, "small_grid");
  EXPECT_DOUBLE_EQ((*g)["gain"]["speedup"].get<double>(), 132.0 / 64.0);
}

TEST(RulesOnFixtures, TransposeGetsBankConflicts) {
  EXPECT_EQ(rule_ids("transpose_bank_conflicts"),
            (std::multiset<std::string>{"bank_conflicts", "low_bandwidth"}));
}

TEST(RulesOnFixtures, DivergentSpillingKernel) {
  // Recorded (H200, 2026-12-01): its local-memory traffic reaches DRAM, above the compulsory bytes.
  EXPECT_EQ(rule_ids("divergent_spilling"),
            (std::multiset<std::string>{"divergent_branches", "local_memory", "low_bandwidth", "redundant_dram_traffic"}));
}

TEST(RulesOnFixtures, LibraryTimeRedundantTrafficAndNarrowLoads) {
  EXPECT_EQ(rule_ids("fused_candidate_with_library"),
            (std::multiset<std::string>{"narrow_loads", "low_bandwidth", "low_bandwidth", "time_outside_own_kernels",
                                        "redundant_dram_traffic"}));
  auto f = load_fixture("fused_candidate_with_library");
  nlohmann::json r = nlohmann::json(build_profile_report(f.inputs).report);
  const nlohmann::json* t = find_suggestion(r, "time_outside_own_kernels");
  ASSERT_TRUE(t);
  EXPECT_NE((*t)["detail"].get<std::string>().find("sm90_xmma_gemm"), std::string::npos);
  EXPECT_NEAR((*t)["gain"]["speedup"].get<double>(), 2800.0 / 800.0, 1e-9);
  EXPECT_TRUE((*t)["kernel"].is_null());
  const nlohmann::json* red = find_suggestion(r, "redundant_dram_traffic");
  EXPECT_NEAR((*red)["evidence"][1]["value"].get<double>(), 2.0, 1e-9);
}

TEST(RulesOnFixtures, NoCountersMeansNoCounterRulesAndAPlainReason) {
  EXPECT_EQ(rule_ids("counters_unavailable"), std::multiset<std::string>{});
  auto f = load_fixture("counters_unavailable");
  nlohmann::json r = nlohmann::json(build_profile_report(f.inputs).report);
  EXPECT_FALSE(r["candidate"]["counters"]["available"].get<bool>());
  EXPECT_EQ(r["candidate"]["counters"]["code"], "insufficient_privileges");
  EXPECT_TRUE(r["candidate"]["roofline"].is_null());
  EXPECT_FALSE(r["candidate"]["kernels"][0].contains("metrics"));
  EXPECT_FALSE(r["candidate"]["kernels"][0].contains("derived"));
  ASSERT_EQ(r["notes"].size(), 1u);
  EXPECT_NE(r["notes"][0].get<std::string>().find("restricted to administrators"), std::string::npos);

  // Sandboxed, the user learns that the sandbox is why, and what to do (unconfined: no such note).
  f.inputs.sandbox_mode = "namespaces";
  nlohmann::json boxed = nlohmann::json(build_profile_report(f.inputs).report);
  ASSERT_EQ(boxed["notes"].size(), 2u);
  EXPECT_NE(boxed["notes"][1].get<std::string>().find("ran in hone's sandbox (namespaces)"), std::string::npos);
  EXPECT_NE(boxed["notes"][1].get<std::string>().find("--no-sandbox"), std::string::npos);
  f.inputs.sandbox_mode = "none";
  EXPECT_EQ(nlohmann::json(build_profile_report(f.inputs).report)["notes"].size(), 1u);
}

// Direct rule inputs at the thresholds' edges.
struct Built {
  ProfiledKernel kernel;
  KernelRuleInput input;
};

Built kernel_with(MetricValues m, int regs = 32, std::array<int, 3> block = {256, 1, 1}, std::array<int, 3> grid = {1024, 1, 1}) {
  Built b;
  b.kernel.record.name = "k(float*)";
  b.kernel.record.own = true;
  b.kernel.record.duration_us = 100;
  b.kernel.record.registers_per_thread = regs;
  b.kernel.record.block = block;
  b.kernel.record.grid = grid;
  b.kernel.metrics = std::move(m);
  b.kernel.derived = derive(b.kernel.metrics);
  b.input.device = DeviceLimits{132, 64, 32, 65536, 233472};
  return b;
}

TEST(RuleEdges, CoalescingThreshold) {
  auto at = [](double pct) {
    Built b = kernel_with({{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", pct},
                           {"smsp__sass_inst_executed_op_global_ld.sum", 100}});
    b.input.kernel = &b.kernel;
    return rule_uncoalesced_loads(b.input).has_value();
  };
  EXPECT_TRUE(at(kCoalescedPct - 0.1));
  EXPECT_FALSE(at(kCoalescedPct));
  EXPECT_FALSE(at(100));
  // No global load executed: CUPTI's 0% means nothing.
  Built none = kernel_with({{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 0},
                            {"smsp__sass_inst_executed_op_global_ld.sum", 0}});
  none.input.kernel = &none.kernel;
  EXPECT_FALSE(rule_uncoalesced_loads(none.input));
}

TEST(RuleEdges, SmallGridAndBankConflictsAndDivergence) {
  Built small = kernel_with({}, 32, {256, 1, 1}, {131, 1, 1});
  small.input.kernel = &small.kernel;
  EXPECT_TRUE(rule_small_grid(small.input));
  small.kernel.record.grid = {132, 1, 1};
  EXPECT_FALSE(rule_small_grid(small.input));

  Built bank = kernel_with({{"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 150},
                            {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0},
                            {"smsp__sass_inst_executed_op_shared_ld.sum", 100},
                            {"smsp__sass_inst_executed_op_shared_st.sum", 0}});
  bank.input.kernel = &bank.kernel;
  EXPECT_FALSE(rule_bank_conflicts(bank.input)) << "1.5 wavefronts per request is the limit, not over it";
  bank.kernel.metrics["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] = 151;
  bank.kernel.derived = derive(bank.kernel.metrics);
  EXPECT_TRUE(rule_bank_conflicts(bank.input));

  Built div = kernel_with({{"smsp__sass_branch_targets.sum", 100}, {"smsp__sass_branch_targets_threads_divergent.sum", 20}});
  div.input.kernel = &div.kernel;
  EXPECT_FALSE(rule_divergent_branches(div.input));
  div.kernel.metrics["smsp__sass_branch_targets_threads_divergent.sum"] = 21;
  div.kernel.derived = derive(div.kernel.metrics);
  EXPECT_TRUE(rule_divergent_branches(div.input));
}

TEST(RuleEdges, TensorCoresOnlyForHalfPrecisionTasksWithoutTensorInstructions) {
  Built b = kernel_with({{"sm__inst_executed_pipe_tensor.sum", 0}});
  b.input.kernel = &b.kernel;
  RooflinePoint p;
  p.flops = 1e12;
  p.arithmetic_intensity = 100;
  p.achieved_flops_per_s = 1e13;
  p.peak_bytes_per_s = 4e12;
  b.input.point = p;
  b.input.task_dtype = "float16";
  EXPECT_TRUE(rule_tensor_cores_unused(b.input));
  b.input.task_dtype = "float32";
  EXPECT_FALSE(rule_tensor_cores_unused(b.input));
  b.input.task_dtype = "bfloat16";
  b.kernel.metrics["sm__inst_executed_pipe_tensor.sum"] = 5;
  b.kernel.derived = derive(b.kernel.metrics);
  EXPECT_FALSE(rule_tensor_cores_unused(b.input));
  // The default set on GH100 for bf16 trades the pipe counter for the dtype's tensor ops.
  b.kernel.metrics = {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 0}};
  b.kernel.derived = derive(b.kernel.metrics);
  auto s = rule_tensor_cores_unused(b.input);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->evidence[0].metric, "sm__ops_path_tensor_src_bf16_dst_fp32.sum");
  b.kernel.metrics.clear();
  b.kernel.derived = derive(b.kernel.metrics);
  EXPECT_FALSE(rule_tensor_cores_unused(b.input)) << "no evidence either way: no suggestion";
}

TEST(Occupancy, LimitsLikeTheOccupancyCalculator) {
  DeviceLimits h100{132, 64, 32, 65536, 233472};
  auto regs = theoretical_occupancy(255, 256, 0, h100);
  EXPECT_EQ(regs->limited_by, "registers");
  EXPECT_EQ(regs->blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(regs->pct, 12.5);
  auto full = theoretical_occupancy(32, 256, 0, h100);
  EXPECT_EQ(full->limited_by, "warps");  // 32 registers allow exactly the 8 blocks the warps allow
  EXPECT_DOUBLE_EQ(full->pct, 100);
  auto smem = theoretical_occupancy(32, 128, 100 * 1024, h100);
  EXPECT_EQ(smem->limited_by, "shared_memory");
  EXPECT_EQ(smem->blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(smem->pct, 12.5);
  auto tiny = theoretical_occupancy(16, 32, 0, h100);
  EXPECT_EQ(tiny->limited_by, "blocks");
  EXPECT_DOUBLE_EQ(tiny->pct, 50);
  EXPECT_FALSE(theoretical_occupancy(32, 0, 0, h100));
}

TEST(Derived, FormulasFromCounters) {
  MetricValues m = {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 10},
                    {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 20},
                    {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 30},
                    {"dram__bytes_read.sum", 1000},
                    {"dram__bytes_write.sum", 500},
                    {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 4096},
                    {"dram__bytes.sum.peak_sustained", 1000},
                    {"dram__cycles_elapsed.avg.per_second", 2e9}};
  DerivedMetrics d = derive(m);
  EXPECT_DOUBLE_EQ(d.flops.at(Precision::fp32), 90);  // fadd + fmul + 2 ffma
  EXPECT_DOUBLE_EQ(d.flops.at(Precision::bf16_tensor), 4096);
  EXPECT_FALSE(d.flops.count(Precision::fp64)) << "absent counters give no value, not zero";
  EXPECT_DOUBLE_EQ(*d.dram_bytes(), 1500);
  EXPECT_DOUBLE_EQ(*d.device_peak_dram_bytes_per_s, 2e12);
  EXPECT_DOUBLE_EQ(d.total_flops(), 90 + 4096);
  EXPECT_FALSE(derive({{"dram__bytes_read.sum", 1}}).dram_bytes());
}

TEST(KernelNames, BaseNameAndOwnership) {
  EXPECT_EQ(base_kernel_name("relu_kernel(float const*, float*, long)"), "relu_kernel");
  EXPECT_EQ(base_kernel_name("void tile<128, 4>(float const*, float*)"), "tile<128, 4>");
  EXPECT_EQ(base_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)"),
            "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>");
  EXPECT_EQ(base_kernel_name("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(base_kernel_name("ns::(anonymous namespace)::heavy(float const*, float*)"), "ns::(anonymous namespace)::heavy");
  nlohmann::json side = {{"activity",
                          {{"kernels",
                            {{{"name", "void tile<128>(float*)"}, {"duration_ns", 1000}},
                             {{"name", "ns::(anonymous namespace)::relu(float*)"}, {"duration_ns", 3000}},
                             {{"name", "ampere_sgemm_128x64_nn"}, {"duration_ns", 6000}},
                             {{"name", "void hone_attention::attention_kernel<__nv_bfloat16, 64, 4, 32, 1, Causal>("
                                       "__nv_bfloat16 const*, int, float, Causal)"},
                              {"duration_ns", 5000}},
                             {{"name", "void other::attention_kernel_v2<float>(float*)"}, {"duration_ns", 500}}}}}}};
  ProfiledCall call = parse_profiled_call(side, {"tile", "relu", "attention_kernel"});
  EXPECT_TRUE(call.kernels[0].record.own);
  EXPECT_TRUE(call.kernels[1].record.own);
  EXPECT_FALSE(call.kernels[2].record.own);
  EXPECT_TRUE(call.kernels[3].record.own) << "a namespaced template instance of an own kernel is own";
  EXPECT_FALSE(call.kernels[4].record.own) << "a longer name that only starts like an own kernel is not";
  EXPECT_DOUBLE_EQ(call.own_us(), 9);
  EXPECT_DOUBLE_EQ(call.library_us(), 6.5);
  EXPECT_EQ(call.counters.code, "not_collected");
}

TEST(KernelNames, CountersAreNotAttributedWhenRangesAndKernelsDisagree) {
  nlohmann::json side = {{"activity", {{"kernels", {{{"name", "a()"}, {"duration_ns", 1000}}}}}},
                         {"metrics",
                          {{"chip", "GH100"},
                           {"ranges", {{{"values", {{"dram__bytes_read.sum", 1}}}}, {{"values", {{"dram__bytes_read.sum", 2}}}}}}}}};
  ProfiledCall call = parse_profiled_call(side, {"a"});
  EXPECT_TRUE(call.kernels[0].metrics.empty());
  EXPECT_NE(call.match_note.find("2 counter ranges for 1 traced kernels"), std::string::npos);
}

}  // namespace
}  // namespace hone::profile
