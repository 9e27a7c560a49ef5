// tests/cupti/host_query_test.cpp: libhone_cupti without a GPU: replay-pass counts and metric
// validation from the real Profiler Host API (chip names, no counter availability image), and
// clear errors for bad requests and for recording on a machine without a driver.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "hone_cupti.h"

namespace {

nlohmann::json query(const nlohmann::json& request) {
  return nlohmann::json::parse(hone_cupti_host_query(request.dump().c_str()));
}

bool collected(const nlohmann::json& answer, const std::string& name) { return answer["collected"].contains(name); }

TEST(HostQuery, DefaultSetFitsTwoPassesOnGH100) {
  for (const char* dtype : {"fp32", "fp16", "bf16", ""}) {
    SCOPED_TRACE(dtype);
    nlohmann::json a = query({{"chip", "GH100"}, {"metrics", "default"}, {"dtype", dtype}});
    ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
    EXPECT_LE(a["passes"].get<int>(), 2);
    EXPECT_GE(a["passes"].get<int>(), 1);
    for (const char* m : {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                          "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                          "sm__warps_active.avg.pct_of_peak_sustained_active",
                          "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                          "smsp__sass_branch_targets_threads_divergent.sum", "dram__bytes.sum.peak_sustained"})
      EXPECT_TRUE(collected(a, m)) << m << " missing from " << a["collected"].dump();
  }
}

TEST(HostQuery, DefaultSetCarriesTheTaskDtypesTensorOps) {
  nlohmann::json bf16 = query({{"chip", "GH100"}, {"metrics", "default"}, {"dtype", "bf16"}});
  EXPECT_TRUE(collected(bf16, "sm__ops_path_tensor_src_bf16_dst_fp32.sum")) << bf16.dump();
  EXPECT_LE(bf16["passes"].get<int>(), 2);
  nlohmann::json fp32 = query({{"chip", "GH100"}, {"metrics", "default"}, {"dtype", "fp32"}});
  EXPECT_TRUE(collected(fp32, "sm__ops_path_tensor_src_tf32_dst_fp32.sum"));
  // Whatever did not fit the budget is named with the reason, never silently dropped.
  for (const auto& o : fp32["omitted"]) EXPECT_NE(o["reason"].get<std::string>().find("replay passes"), std::string::npos);
}

TEST(HostQuery, FullSetNeedsMorePassesAndCollectsEverythingValid) {
  nlohmann::json a = query({{"chip", "GH100"}, {"metrics", "full"}, {"dtype", "bf16"}});
  ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
  EXPECT_GT(a["passes"].get<int>(), 2);
  EXPECT_TRUE(a["omitted"].empty()) << a["omitted"].dump();
  EXPECT_TRUE(collected(a, "sm__throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_TRUE(collected(a, "lts__t_sector_hit_rate.pct"));
  EXPECT_TRUE(collected(a, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"));
}

TEST(HostQuery, ExplicitListsCountPassesLikeCuptiMd) {
  // sm__throughput alone needs 8 passes on GH100 (../shared/gpu/CUPTI.md section 4).
  nlohmann::json a = query({{"chip", "GH100"}, {"metrics", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}}});
  EXPECT_EQ(a["passes"], 8) << a.dump();
  nlohmann::json b = query({{"chip", "GH100"}, {"metrics", {"dram__bytes_read.sum", "gpu__time_duration.sum"}}});
  EXPECT_EQ(b["passes"], 1);
}

TEST(HostQuery, OtherChipsUseTheirOwnNames) {
  for (const char* chip : {"GA100", "AD102", "GB100", "GB202"}) {
    SCOPED_TRACE(chip);
    nlohmann::json a = query({{"chip", chip}, {"metrics", "default"}, {"dtype", "fp16"}});
    ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
    EXPECT_LE(a["passes"].get<int>(), 2);
    EXPECT_TRUE(collected(a, "dram__bytes_read.sum"));
  }
  nlohmann::json gb202 = query({{"chip", "GB202"}, {"metrics", "default"}});
  EXPECT_EQ(gb202["collected"]["dram__bytes_read.sum"], "dram__bytes_op_read.sum");
  nlohmann::json ga100 = query({{"chip", "GA100"}, {"metrics", "default"}, {"dtype", "fp16"}});
  if (collected(ga100, "sm__ops_path_tensor_src_fp16.sum")) {
    EXPECT_EQ(ga100["collected"]["sm__ops_path_tensor_src_fp16.sum"], "sm__ops_path_tensor_src_fp16_dst_fp32.sum");
  }
  std::set<std::string> chips;
  for (const auto& c : ga100["supported_chips"]) chips.insert(c.get<std::string>());
  EXPECT_TRUE(chips.count("GH100"));
}

TEST(HostQuery, ClearErrorsForBadRequests) {
  nlohmann::json bad_name = query({{"chip", "GH100"}, {"metrics", {"launch__registers_per_thread"}}});
  EXPECT_FALSE(bad_name["ok"].get<bool>());
  EXPECT_EQ(bad_name["error"]["code"], "invalid_metric");
  EXPECT_NE(bad_name["error"]["message"].get<std::string>().find("launch__registers_per_thread"), std::string::npos);

  nlohmann::json bad_chip = query({{"chip", "XX999"}, {"metrics", "default"}});
  EXPECT_FALSE(bad_chip["ok"].get<bool>());
  EXPECT_EQ(bad_chip["error"]["code"], "not_supported");

  nlohmann::json bad_set = query({{"chip", "GH100"}, {"metrics", "everything"}});
  EXPECT_EQ(bad_set["error"]["code"], "bad_request");

  nlohmann::json not_json = nlohmann::json::parse(hone_cupti_host_query("{oops"));
  EXPECT_EQ(not_json["error"]["code"], "bad_request");
  nlohmann::json no_chip = query({{"metrics", "default"}});
  EXPECT_EQ(no_chip["error"]["code"], "bad_request");
}

TEST(Recording, WithoutADriverBeginSaysSoAndEndIsRefused) {
  nlohmann::json end = nlohmann::json::parse(hone_cupti_end());
  EXPECT_EQ(end["error"]["code"], "bad_request");
  nlohmann::json begin = nlohmann::json::parse(hone_cupti_begin(R"({"activity": true})"));
  if (begin["ok"].get<bool>()) {
    hone_cupti_end();
    GTEST_SKIP() << "a GPU driver is present: cupti_gpu_tests cover recording";
  }
  EXPECT_TRUE(begin["error"]["code"] == "no_device" || begin["error"]["code"] == "no_context") << begin.dump();
  EXPECT_FALSE(begin["error"]["message"].get<std::string>().empty());
}

TEST(Recording, PrepareNeedsMetricsAndWithoutADriverSaysSo) {
  nlohmann::json bare = nlohmann::json::parse(hone_cupti_prepare(R"({"activity": true})"));
  EXPECT_EQ(bare["error"]["code"], "bad_request") << bare.dump();
  EXPECT_NE(bare["error"]["message"].get<std::string>().find("metrics"), std::string::npos) << bare.dump();
  nlohmann::json prepared =
      nlohmann::json::parse(hone_cupti_prepare(R"({"metrics": ["gpu__time_duration.sum"], "max_ranges": 8})"));
  if (prepared["ok"].get<bool>()) GTEST_SKIP() << "a GPU driver is present: cupti_gpu_tests cover prepared counters";
  EXPECT_TRUE(prepared["error"]["code"] == "no_device" || prepared["error"]["code"] == "no_context") << prepared.dump();
  // Nothing was left prepared or recording: a begin still says why it cannot record.
  nlohmann::json begin = nlohmann::json::parse(hone_cupti_begin(R"({"activity": true})"));
  EXPECT_FALSE(begin["ok"].get<bool>()) << begin.dump();
}

TEST(Version, NamesTheCuptiItLoaded) {
  nlohmann::json v = nlohmann::json::parse(hone_cupti_version());
  ASSERT_TRUE(v["ok"].get<bool>()) << v.dump();
  EXPECT_GE(v["cupti_api_version"].get<int>(), 130000);
  EXPECT_NE(v["cupti_library"].get<std::string>().find("libcupti.so"), std::string::npos);
}

// The kernel prologue is armed inside a recording that asked for it; anything else is a clear
// error, never a crash (no GPU needed: there is no recording).
TEST(KernelPrologue, ArmingWithoutARecordingThatAskedForItIsABadRequest) {
  const nlohmann::json armed = nlohmann::json::parse(
      hone_cupti_kernel_prologue([](void*, void*) { return 0; }, nullptr));
  EXPECT_FALSE(armed["ok"].get<bool>());
  EXPECT_EQ(armed["error"]["code"], "bad_request") << armed.dump();
  EXPECT_NE(armed["error"]["message"].get<std::string>().find("kernel_prologue"), std::string::npos) << armed.dump();
  const nlohmann::json disarmed = nlohmann::json::parse(hone_cupti_kernel_prologue(nullptr, nullptr));
  EXPECT_EQ(disarmed["error"]["code"], "bad_request") << disarmed.dump();
}

}  // namespace
