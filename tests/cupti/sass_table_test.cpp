// tests/cupti/sass_table_test.cpp: the SASS Metrics half that needs no GPU: which preferred
// per-instruction metrics a chip's list yields (and why the others are left out), the table that
// folds flushed records into one row per instruction (values of SM instances adding up, unknown
// metric ids ignored, kernels and rows bounded with counts), and libhone_cupti's answers to a
// SASS recording without a driver and to requests that mix it with other recordings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hone_cupti.h"
#include "sass_table.h"

namespace {

using hone::cupti::SassRecord;
using hone::cupti::SassTable;
using nlohmann::json;

TEST(SassMetricChoice, TakesThePreferredMetricsTheChipOffersAndSaysWhyTheOthersAreMissing) {
  const std::vector<std::string> available = {"smsp__sass_thread_inst_executed", "smsp__sass_inst_executed",
                                              "smsp__sass_inst_executed_op_global_ld"};
  auto choice = hone::cupti::choose_sass_metrics(hone::cupti::preferred_sass_metrics(), available, "GH100");
  EXPECT_EQ(choice.collect, (std::vector<std::string>{"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"}));
  ASSERT_EQ(choice.omitted.size(), hone::cupti::preferred_sass_metrics().size() - 2);
  for (const auto& [name, reason] : choice.omitted) {
    EXPECT_NE(name, "smsp__sass_inst_executed");
    EXPECT_NE(reason.find("GH100"), std::string::npos) << reason;
  }
}

TEST(SassMetricChoice, AnEntryTakesItsFirstOfferedAlternativeOnce) {
  auto choice = hone::cupti::choose_sass_metrics({{"a", "b"}, {"b"}, {"c"}}, {"c", "b"}, "");
  EXPECT_EQ(choice.collect, (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(choice.omitted.empty());
  auto none = hone::cupti::choose_sass_metrics({{"a"}}, {}, "");
  EXPECT_TRUE(none.collect.empty());
  ASSERT_EQ(none.omitted.size(), 1u);
  EXPECT_NE(none.omitted[0].second.find("this GPU"), std::string::npos);
}

TEST(SassTable, FoldsRecordsIntoOneRowPerInstructionInPcOrder) {
  SassTable table({{7, "inst"}, {9, "thread"}}, 8, 100);
  table.add({"_Z4reluPKfPfi", 0xabc, 3, 0x20, 7, 4});
  table.add({"_Z4reluPKfPfi", 0xabc, 3, 0x00, 7, 4});
  table.add({"_Z4reluPKfPfi", 0xabc, 3, 0x20, 7, 6});    // a second instance (SM granularity) adds up
  table.add({"_Z4reluPKfPfi", 0xabc, 3, 0x20, 9, 320});
  table.add({"_Z4reluPKfPfi", 0xabc, 3, 0x20, 42, 1});   // not a collected metric: ignored
  table.add({"_Z5otherv", 0xdef, 1, 0x10, 7, 2});
  json j = table.to_json();
  ASSERT_EQ(j["kernels"].size(), 2u) << j.dump();
  const json& relu = j["kernels"][0];
  EXPECT_EQ(relu["function"], "_Z4reluPKfPfi");
  EXPECT_EQ(relu["cubin_crc"], 0xabc);
  EXPECT_EQ(relu["function_index"], 3);
  ASSERT_EQ(relu["instructions"].size(), 2u);
  EXPECT_EQ(relu["instructions"][0]["pc_offset"], 0);
  EXPECT_EQ(relu["instructions"][1]["pc_offset"], 0x20);
  EXPECT_EQ(relu["instructions"][1]["values"], (json{{"inst", 10}, {"thread", 320}}));
  EXPECT_EQ(relu["instructions"][0]["values"], (json{{"inst", 4}}));
  EXPECT_EQ(j["kernels"][1]["function"], "_Z5otherv");
  EXPECT_EQ(j["kernels_dropped"], 0);
  EXPECT_EQ(j["instructions_dropped"], 0);
}

TEST(SassTable, KeepsTheFirstKernelsAndRowsAndCountsWhatItDrops) {
  SassTable table({{1, "inst"}}, 1, 2);
  table.add({"first", 1, 0, 0x00, 1, 1});
  table.add({"second", 1, 0, 0x00, 1, 1});
  table.add({"second", 1, 0, 0x10, 1, 1});  // the same dropped kernel counts once
  table.add({"first", 1, 0, 0x10, 1, 1});
  table.add({"first", 1, 0, 0x20, 1, 1});   // past the row budget
  table.add({"first", 1, 0, 0x20, 1, 1});   // the same dropped row counts once
  table.add({"first", 1, 0, 0x10, 1, 5});   // a kept row still adds up
  json j = table.to_json();
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["instructions"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["instructions"][1]["values"]["inst"], 6);
  EXPECT_EQ(j["kernels_dropped"], 1);
  EXPECT_EQ(j["instructions_dropped"], 1);
}

TEST(SassRecording, IsRefusedBesideOtherRecordingsAndSaysWhyWithoutADriver) {
  json mixed = json::parse(hone_cupti_begin(R"({"sass": true, "metrics": "default"})"));
  EXPECT_EQ(mixed["error"]["code"], "bad_request") << mixed.dump();
  EXPECT_NE(mixed["error"]["message"].get<std::string>().find("patch"), std::string::npos);
  json traced = json::parse(hone_cupti_begin(R"({"sass": true, "activity": true})"));
  EXPECT_EQ(traced["error"]["code"], "bad_request") << traced.dump();
  json malformed = json::parse(hone_cupti_begin(R"({"sass": "everything"})"));
  EXPECT_EQ(malformed["error"]["code"], "bad_request") << malformed.dump();

  json begin = json::parse(hone_cupti_begin(R"({"sass": {"max_kernels": 2}})"));
  if (begin["ok"].get<bool>()) {
    hone_cupti_end();
    GTEST_SKIP() << "a GPU driver is present: cupti_gpu_tests cover SASS recording";
  }
  EXPECT_TRUE(begin["error"]["code"] == "no_device" || begin["error"]["code"] == "no_context") << begin.dump();
  EXPECT_FALSE(begin["error"]["message"].get<std::string>().empty());
  json end = json::parse(hone_cupti_end());
  EXPECT_EQ(end["error"]["code"], "bad_request") << "a failed begin left a recording behind: " << end.dump();
}

}  // namespace
