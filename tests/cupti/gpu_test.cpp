// tests/cupti/gpu_test.cpp: libhone_cupti on a real GPU against known answers (../shared/gpu/
// CUPTI.md): vector add DRAM bytes ~1.01x the compulsory 12n, FP32 FLOPs of an FMA loop exact,
// 12.5% coalescing for a strided gather, kernel replay keeping side effects single, and the
// report's suggestions for the gather, a register-heavy kernel, a bank-conflicted transpose, a
// divergent local-memory kernel and a bf16 matmul on CUDA cores; per-instruction SASS counts of
// the vector add (once per warp, every thread). Skips without a GPU. With
// HONE_PROFILE_OUT set, writes the raw results there as recorded fixtures (scripts/gpu/profile.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "gpu_kernels.h"
#include "hone_cupti.h"
#include "profile/report.h"

namespace hone::cupti_test {
namespace {

using nlohmann::json;

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA GPU here: scripts/gpu/profile.sh runs this on the H200"

json device_json() {
  DeviceProps d = device_props();
  return {{"index", d.index},
          {"name", d.name},
          {"arch", d.arch},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"memory_bytes", d.memory_bytes},
          {"max_threads_per_sm", d.max_threads_per_sm},
          {"shared_bytes_per_sm", d.shared_bytes_per_sm},
          {"registers_per_sm", d.registers_per_sm},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"sm_clock_khz", d.sm_clock_khz}};
}

double seconds_of(const std::function<void()>& f) {
  auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// begin(request); work(); end() -> the end answer (asserting both succeeded).
json record(const json& request, const std::function<void()>& work) {
  json begin = json::parse(hone_cupti_begin(request.dump().c_str()));
  EXPECT_TRUE(begin["ok"].get<bool>()) << begin.dump();
  if (!begin["ok"].get<bool>()) return begin;
  work();
  json end = json::parse(hone_cupti_end());
  EXPECT_TRUE(end["ok"].get<bool>()) << end.dump();
  return end;
}

json metrics_of(const std::function<void()>& work, const char* dtype = "fp32") {
  return record({{"metrics", "default"}, {"dtype", dtype}}, work);
}

double value(const json& end, const std::string& metric, std::size_t range = 0) {
  return end["metrics"]["ranges"][range]["values"].value(metric, -1.0);
}

// The worker-result shape of one traced + counted call (a recorded fixture).
json worker_side(const std::function<void()>& work, const char* dtype) {
  json side = {{"source", "cupti"}, {"counters_error", nullptr}};
  json activity, metrics;
  double ta = seconds_of([&] { activity = record({{"activity", true}}, work); });
  double tm = seconds_of([&] { metrics = metrics_of(work, dtype); });
  side["activity"] = activity["activity"];
  side["metrics"] = metrics["metrics"];
  side["seconds"] = {{"activity", ta}, {"metrics", tm}};
  return side;
}

void save(const std::string& name, const json& j) {
  const char* dir = std::getenv("HONE_PROFILE_OUT");
  if (!dir) return;
  std::filesystem::create_directories(dir);
  std::ofstream(std::filesystem::path(dir) / (name + ".json")) << j.dump(1);
}

json fixture(const std::string& what, const json& side, double io_bytes, const std::vector<std::string>& own,
             const char* dtype = "float32") {
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json device = device_json();
  return {{"fixture", {{"recorded", true}, {"date", date}, {"gpu", device["name"]},
                       {"command", "build-gpu/bin/cupti_gpu_tests (scripts/gpu/profile.sh)"}, {"what", what}}},
          {"device", device},
          {"dtype", dtype},
          {"io_bytes", io_bytes},
          {"own_kernels", own},
          {"candidate", side},
          {"reference", nullptr},
          {"seconds", {{"total", side["seconds"]["activity"].get<double>() + side["seconds"]["metrics"].get<double>()}}}};
}

std::multiset<std::string> suggestions_for(const json& fix) {
  profile::ProfileInputs in;
  in.worker_result = fix;
  in.own_kernels = fix["own_kernels"].get<std::vector<std::string>>();
  in.device = fix["device"].get<profile::DeviceFacts>();
  in.compulsory_bytes = fix["io_bytes"].get<double>();
  in.task_dtype = fix["dtype"].get<std::string>();
  json report = nlohmann::json(profile::build_profile_report(in).report);
  std::multiset<std::string> ids;
  for (const json& s : report["suggestions"]) ids.insert(s["id"].get<std::string>());
  return ids;
}

TEST(Activity, RecordsKernelsWithLaunchConfiguration) {
  REQUIRE_GPU();
  vec_add(1 << 20);  // warm-up: module load, allocations
  json end = record({{"activity", true}}, [] { vec_add(1 << 20); });
  const json& kernels = end["activity"]["kernels"];
  ASSERT_EQ(kernels.size(), 1u) << end.dump();
  EXPECT_NE(kernels[0]["name"].get<std::string>().find("vec_add_kernel"), std::string::npos);
  EXPECT_EQ(kernels[0]["grid"][0], 4096);
  EXPECT_EQ(kernels[0]["block"][0], 256);
  EXPECT_GT(kernels[0]["registers_per_thread"].get<int>(), 0);
  EXPECT_GT(kernels[0]["duration_ns"].get<double>(), 0);
}

TEST(Metrics, VecAddMovesAboutTheCompulsoryDramBytes) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 26;
  vec_add(n);
  json end = metrics_of([&] { vec_add(n); });
  ASSERT_EQ(end["metrics"]["ranges"].size(), 1u) << end.dump();
  EXPECT_LE(end["metrics"]["passes"].get<int>(), 2);
  double bytes = value(end, "dram__bytes_read.sum") + value(end, "dram__bytes_write.sum");
  double ratio = bytes / (12.0 * n);
  EXPECT_GT(ratio, 0.98);
  EXPECT_LT(ratio, 1.08);
  EXPECT_NEAR(value(end, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"), 100, 1);
  save("vec_add_counters", {{"dram_bytes", bytes}, {"ratio_to_12n", ratio}, {"answer", end}});
}

TEST(Metrics, FmaLoopFlopsAreExact) {
  REQUIRE_GPU();
  const int threads = 1 << 20, iterations = 4096;
  fma_loop(threads, 16);
  json end = metrics_of([&] { fma_loop(threads, iterations); });
  double flops = value(end, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") +
                 value(end, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum") +
                 2 * value(end, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
  double known = 2.0 * threads * iterations;
  EXPECT_NEAR(flops / known, 1.0, 1e-4) << "counted " << flops << " FLOP, known " << known;
  save("fma_loop_counters", {{"flops", flops}, {"known_flops", known}, {"answer", end}});
}

TEST(Metrics, StridedGatherShowsPoorCoalescing) {
  REQUIRE_GPU();
  strided_gather(1 << 24, 8);
  json end = metrics_of([] { strided_gather(1 << 24, 8); });
  EXPECT_NEAR(value(end, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"), 12.5, 0.5) << end.dump();
}

TEST(Metrics, KernelReplayRunsSideEffectsOnce) {
  REQUIRE_GPU();
  accumulate_once();
  float y = -1;
  json end = metrics_of([&] { y = accumulate_once(); });
  EXPECT_GE(end["metrics"]["passes"].get<int>(), 1);
  EXPECT_EQ(y, 1.0f) << "kernel replay must restore memory between passes";
}

TEST(Sass, VecAddCountsEveryInstructionOncePerWarpAndLeavesNothingBehind) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 20;  // 4096 blocks of 256: every thread has an element
  vec_add(n);
  json end = record({{"sass", true}}, [&] { vec_add(n); });
  ASSERT_TRUE(end["ok"].get<bool>()) << end.dump().substr(0, 2000);
  const json& sass = end["sass"];
  save("vec_add_sass", sass);
  const json& metrics = sass["metrics"];
  ASSERT_TRUE(std::find(metrics.begin(), metrics.end(), "smsp__sass_inst_executed") != metrics.end()) << sass.dump().substr(0, 3000);
  ASSERT_TRUE(std::find(metrics.begin(), metrics.end(), "smsp__sass_thread_inst_executed") != metrics.end()) << sass.dump().substr(0, 3000);
  ASSERT_EQ(sass["kernels"].size(), 1u) << sass.dump().substr(0, 3000);
  const json& k = sass["kernels"][0];
  EXPECT_NE(k["function"].get<std::string>().find("vec_add_kernel"), std::string::npos) << k["function"];
  const std::uint64_t warps = static_cast<std::uint64_t>(n / 32);
  ASSERT_FALSE(k["instructions"].empty());
  const json& first = k["instructions"][0];
  EXPECT_EQ(first["pc_offset"], 0);
  EXPECT_EQ(first["values"]["smsp__sass_inst_executed"].get<std::uint64_t>(), warps) << "every warp runs the first instruction";
  EXPECT_EQ(first["values"]["smsp__sass_thread_inst_executed"].get<std::uint64_t>(), static_cast<std::uint64_t>(n));
  int whole = 0;
  for (const json& i : k["instructions"]) {
    const auto inst = i["values"].value("smsp__sass_inst_executed", std::uint64_t{0});
    const auto thread = i["values"].value("smsp__sass_thread_inst_executed", std::uint64_t{0});
    EXPECT_LE(inst, warps) << "no loop: at most once per warp, at " << i["pc_offset"];
    EXPECT_GE(thread, inst);
    EXPECT_LE(thread, 32 * inst);
    if (inst == warps && thread == static_cast<std::uint64_t>(n)) ++whole;
  }
  EXPECT_GE(whole, 6) << "the index, two loads, the add, the store and the exit run in every thread";
  EXPECT_EQ(sass["kernels_dropped"], 0);
  EXPECT_EQ(sass["instructions_dropped"], 0);

  // Disabled and unset: ordinary counters work again, and a second SASS recording too.
  json after = metrics_of([&] { vec_add(n); });
  EXPECT_EQ(after["metrics"]["ranges"].size(), 1u) << after.dump().substr(0, 1000);
  json again = record({{"sass", {{"max_kernels", 1}, {"max_instructions", 4}}}}, [&] { vec_add(n); });
  ASSERT_TRUE(again["ok"].get<bool>()) << again.dump().substr(0, 1000);
  EXPECT_EQ(again["sass"]["kernels"][0]["instructions"].size(), 4u);
  EXPECT_GT(again["sass"]["instructions_dropped"].get<int>(), 0);
}

TEST(Report, GatherGetsTheCoalescingSuggestion) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 24;
  strided_gather(n, 8);
  json fix = fixture("strided gather, stride 8 floats, 2^24 outputs", worker_side([&] { strided_gather(n, 8); }, "fp32"),
                     8.0 * n, {"strided_gather_kernel"});
  save("strided_gather", fix);
  EXPECT_TRUE(suggestions_for(fix).count("uncoalesced_loads")) << fix.dump();
}

TEST(Report, RegisterHeavyKernelGetsTheOccupancySuggestion) {
  REQUIRE_GPU();
  int blocks = 4 * device_props().sm_count;
  int regs = register_heavy(blocks);
  EXPECT_GE(regs, 128);
  json fix = fixture("register-heavy kernel, 256-thread blocks", worker_side([&] { register_heavy(blocks); }, "fp32"),
                     4096.0 * 4 + blocks * 256.0 * 4, {"register_heavy_kernel"});
  save("register_heavy", fix);
  EXPECT_TRUE(suggestions_for(fix).count("occupancy_registers")) << fix.dump();
}

TEST(Report, VecAddAndFmaFixturesAndOverhead) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 26;
  vec_add(n);
  double plain = seconds_of([&] { vec_add(n); });
  json side = worker_side([&] { vec_add(n); }, "fp32");
  json vec = fixture("vector add of 2^26 floats", side, 12.0 * n, {"vec_add_kernel"});
  save("vec_add_2p26", vec);
  std::multiset<std::string> vec_ids = suggestions_for(vec);
  EXPECT_FALSE(vec_ids.count("uncoalesced_loads") || vec_ids.count("low_bandwidth")) << vec.dump();
  save("overhead", {{"plain_call_seconds", plain},
                    {"activity_call_seconds", side["seconds"]["activity"]},
                    {"metrics_call_seconds", side["seconds"]["metrics"]},
                    {"passes", side["metrics"]["passes"]}});
  json fma = fixture("FMA loop: 2^20 threads x 4096 FFMA", worker_side([] { fma_loop(1 << 20, 4096); }, "fp32"),
                     8.0 * (1 << 20), {"fma_loop_kernel"});
  save("fma_loop", fma);
  EXPECT_FALSE(suggestions_for(fma).count("uncoalesced_loads")) << fma.dump();
}

// The triggers of the rules the first run did not record (replacing synthetic fixtures).
TEST(Report, TransposeGetsTheBankConflictSuggestion) {
  REQUIRE_GPU();
  const int n = 4096;
  transpose_naive(n);
  json fix = fixture("naive 4096^2 transpose through an unpadded 32x32 shared tile", worker_side([&] { transpose_naive(n); }, "fp32"),
                     8.0 * n * n, {"transpose_naive_kernel"});
  save("transpose_bank_conflicts", fix);
  EXPECT_TRUE(suggestions_for(fix).count("bank_conflicts")) << fix.dump();
}

TEST(Report, DivergentLocalKernelGetsDivergenceAndLocalMemorySuggestions) {
  REQUIRE_GPU();
  const int n = 1 << 22;
  divergent_local(n);
  json fix = fixture("per-lane loop trip counts over a dynamically indexed 64-float local array, 2^22 threads",
                     worker_side([&] { divergent_local(n); }, "fp32"), 8.0 * n, {"divergent_local_kernel"});
  save("divergent_spilling", fix);
  std::multiset<std::string> ids = suggestions_for(fix);
  EXPECT_TRUE(ids.count("divergent_branches")) << fix.dump();
  EXPECT_TRUE(ids.count("local_memory")) << fix.dump();
}

TEST(Report, Bf16MatmulOnCudaCoresGetsTensorCoreAndSmallGridSuggestions) {
  REQUIRE_GPU();
  const int m = 128, n = 128, k = 8192;  // 64 blocks of 16x16
  matmul_bf16_naive(m, n, k);
  json fix = fixture("128x128x8192 bf16 matmul with fp32 FMA on 64 blocks", worker_side([&] { matmul_bf16_naive(m, n, k); }, "bf16"),
                     2.0 * (m * k + k * n + m * n), {"matmul_bf16_naive_kernel"}, "bfloat16");
  save("matmul_bf16_cuda_cores", fix);
  std::multiset<std::string> ids = suggestions_for(fix);
  EXPECT_TRUE(ids.count("tensor_cores_unused")) << fix.dump();
  EXPECT_TRUE(ids.count("small_grid")) << fix.dump();
}

}  // namespace
}  // namespace hone::cupti_test
