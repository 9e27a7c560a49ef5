// tests/protocol/sass_counters_test.cpp: per-instruction SASS counters as the report carries
// them: read from the worker's profile side (hone_cupti's answer, or the reason it has none),
// and the same after a JSON round trip; malformed input is refused with what is wrong.
#include <gtest/gtest.h>

#include "protocol/sass_counters.h"

namespace hone::protocol {
namespace {

using nlohmann::json;

json worker_side() {
  return json::parse(R"({
    "source": "cupti", "counters_error": null,
    "sass": {"chip": "GH100", "granularity": "gpu", "lazy_patching": true,
             "metrics": ["smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"],
             "omitted": [{"name": "smsp__sass_sectors_mem_global", "reason": "not offered by the SASS Metrics API on GH100"}],
             "offered": ["smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"],
             "records": 6, "records_dropped": 2, "kernels_dropped": 1, "instructions_dropped": 3,
             "kernels": [{"function": "_Z4reluPKfPfl", "cubin_crc": 3735928559, "function_index": 4,
                          "instructions": [{"pc_offset": 0, "values": {"smsp__sass_inst_executed": 64}},
                                           {"pc_offset": 176, "values": {"smsp__sass_inst_executed": 64,
                                                                         "smsp__sass_thread_inst_executed": 2048}}]}],
             "seconds": 0.4},
    "sass_error": null})");
}

TEST(SassCounters, FromTheWorkersSideAndBackThroughJson) {
  SassCounters c = sass_counters_from_worker(worker_side(), "unused");
  EXPECT_TRUE(c.available);
  EXPECT_EQ(c.chip, "GH100");
  EXPECT_EQ(c.metrics, (std::vector<std::string>{"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"}));
  ASSERT_EQ(c.omitted.size(), 1u);
  EXPECT_EQ(c.omitted[0].name, "smsp__sass_sectors_mem_global");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].function, "_Z4reluPKfPfl");
  EXPECT_EQ(c.kernels[0].cubin_crc, 3735928559u);
  ASSERT_EQ(c.kernels[0].instructions.size(), 2u);
  EXPECT_EQ(c.kernels[0].instructions[1].pc_offset, 176u);
  EXPECT_EQ(c.kernels[0].instructions[1].values.at("smsp__sass_thread_inst_executed"), 2048u);
  EXPECT_EQ(c.kernels_dropped, 1);
  EXPECT_EQ(c.instructions_dropped, 3);
  EXPECT_EQ(c.records_dropped, 2);

  json j = c;
  EXPECT_FALSE(j.contains("code")) << "no reason where there are counters";
  EXPECT_FALSE(j["kernels"][0].contains("function_index")) << "the report keeps only what the view reads";
  SassCounters again = j.get<SassCounters>();
  EXPECT_EQ(json(again), j);
}

TEST(SassCounters, CarryTheReasonWhenTheWorkerHasNone) {
  json side = worker_side();
  side["sass"] = nullptr;
  side["sass_error"] = {{"code", "insufficient_privileges"}, {"call", "cuptiSassMetricsSetConfig"}, {"message", "restricted to admins"}};
  SassCounters failed = sass_counters_from_worker(side, "unused");
  EXPECT_FALSE(failed.available);
  EXPECT_EQ(failed.code, "insufficient_privileges");
  EXPECT_EQ(failed.message, "restricted to admins");
  EXPECT_TRUE(failed.kernels.empty());
  json j = failed;
  EXPECT_EQ(j["code"], "insufficient_privileges");
  EXPECT_EQ(j.get<SassCounters>().message, "restricted to admins");

  SassCounters absent = sass_counters_from_worker(json{{"source", "cupti"}}, "the worker did not count per SASS instruction");
  EXPECT_FALSE(absent.available);
  EXPECT_EQ(absent.code, "not_collected");
  EXPECT_EQ(absent.message, "the worker did not count per SASS instruction");
}

TEST(SassCounters, RefuseMalformedInput) {
  json side = worker_side();
  side["sass"]["kernels"][0].erase("function");
  EXPECT_THROW(sass_counters_from_worker(side, ""), std::runtime_error);
  side = worker_side();
  side["sass"]["kernels"][0]["instructions"][0]["pc_offset"] = -4;
  EXPECT_THROW(sass_counters_from_worker(side, ""), std::runtime_error);
  EXPECT_THROW(json("not an object").get<SassCounters>(), std::runtime_error);
}

}  // namespace
}  // namespace hone::protocol
