// tests/profile/report_test.cpp: the profile report of every fixture validates against
// protocol/schema/profile.schema.json (python3-jsonschema) and reads back from its JSON unchanged,
// the SVG plot is well-formed XML with both points, and the text rendering says what a user needs.
#include <gtest/gtest.h>

#include <filesystem>

#include "fixture.h"
#include "profile/report.h"
#include "protocol/verdict_text.h"
#include "support/hash.h"

namespace hone::profile {
namespace {

using testing::load_fixture;
using testing::run_shell;

const char* kFixtures[] = {"vec_add_2p26",          "strided_gather",           "fma_loop",
                           "register_heavy",        "matmul_bf16_cuda_cores",   "transpose_bank_conflicts",
                           "divergent_spilling",    "fused_candidate_with_library", "counters_unavailable"};

bool have_jsonschema() {
  std::string out;
  return run_shell("/usr/bin/python3 -c 'import jsonschema'", "", out) == 0;
}

TEST(ProfileReport, EveryFixtureValidatesAgainstTheSchema) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed (scripts/install-deps.sh installs it)";
  std::string validate = std::string("/usr/bin/python3 -c \"import json,sys,jsonschema; s=json.load(open('") +
                         HONE_PROFILE_SCHEMA +
                         "')); jsonschema.Draft202012Validator.check_schema(s); jsonschema.Draft202012Validator(s).validate(json.load(sys.stdin))\"";
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    auto f = load_fixture(name);
    ProfileOutput built = build_profile_report(f.inputs);
    nlohmann::json rj = built.report;
    rj["plot"] = "/tmp/x.svg";
    std::string out;
    EXPECT_EQ(run_shell(validate, rj.dump(), out), 0) << out;
  }
}

TEST(ProfileReport, EveryFixtureRoundTripsThroughItsJson) {
  // The store and the wire keep the report as JSON: reading it back gives the same report.
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    protocol::ProfileReport report = build_profile_report(load_fixture(name).inputs).report;
    report.plot = "/tmp/x.svg";
    nlohmann::json j = report;
    nlohmann::json again = j.get<protocol::ProfileReport>();
    EXPECT_EQ(again, j);
  }
}

TEST(ProfileReport, SchemaRejectsAnInventedShape) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  auto f = load_fixture("strided_gather");
  nlohmann::json j = nlohmann::json(build_profile_report(f.inputs).report);
  j["suggestions"][0]["evidence"] = nlohmann::json::array();  // a suggestion without evidence
  std::string validate = std::string("/usr/bin/python3 -c \"import json,sys,jsonschema; jsonschema.validate(json.load(sys.stdin), json.load(open('") +
                         HONE_PROFILE_SCHEMA + "')))\"";
  std::string out;
  EXPECT_NE(run_shell(validate, j.dump(), out), 0);
}

// validate_profile_verdict.py over `verdicts` (one per line); returns its exit code, output in `out`.
int validate_verdicts(const std::string& verdicts, std::string& out) {
  return run_shell(std::string("/usr/bin/python3 '") + HONE_PROFILE_SOURCE_DIR + "/validate_profile_verdict.py' '" + HONE_PROFILE_SCHEMA_DIR + "'",
                   verdicts, out);
}

TEST(ProfileVerdict, RecordedHoneProfileOutputValidatesThroughTheProfileRef) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  const std::string recorded = read_file(std::string(HONE_PROFILE_FIXTURES) + "/hone_profile_verdicts.jsonl");
  std::string out;
  EXPECT_EQ(validate_verdicts(recorded, out), 0) << out;
  EXPECT_NE(out.find("2 profile verdict(s) valid"), std::string::npos) << out;

  // The $ref is followed: a profile that breaks profile.schema.json breaks the verdict.
  nlohmann::json v = nlohmann::json::parse(recorded.substr(0, recorded.find('\n')));
  v["profile"]["suggestions"][0].erase("evidence");
  EXPECT_EQ(validate_verdicts(v.dump() + "\n", out), 1) << out;
  EXPECT_NE(out.find("profile/suggestions/0: 'evidence' is a required property"), std::string::npos) << out;
}

TEST(ProfileVerdict, TodaysReportWithSourceLinesValidatesInARecordedVerdict) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  const std::string recorded = read_file(std::string(HONE_PROFILE_FIXTURES) + "/hone_profile_verdicts.jsonl");
  nlohmann::json v = nlohmann::json::parse(recorded.substr(0, recorded.find('\n')));
  auto f = load_fixture("strided_gather");
  v["profile"] = nlohmann::json(build_profile_report(f.inputs).report);
  v["profile"]["plot"] = "/tmp/x.svg";
  nlohmann::json& loc = v["profile"]["suggestions"][0]["location"];
  loc = {{"file", "/work/k.cu"}, {"line", 7}, {"scope", "line"}, {"lines", {7, 9}}};
  std::string out;
  EXPECT_EQ(validate_verdicts(v.dump() + "\n", out), 0) << out;
  loc["lines"] = nlohmann::json::array();
  EXPECT_EQ(validate_verdicts(v.dump() + "\n", out), 1) << "an empty lines list is not a location";
}

TEST(ProfileReport, TheCandidatesSassCountersValidateReadBackAndAreNamed) {
  auto f = load_fixture("vec_add_2p26");
  f.json["candidate"]["sass"] = nlohmann::json::parse(R"({
    "chip": "GH100", "granularity": "gpu", "lazy_patching": true,
    "metrics": ["smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"],
    "omitted": [{"name": "smsp__sass_sectors_mem_global", "reason": "not offered by the SASS Metrics API on GH100"}],
    "offered": ["smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"], "records": 4, "records_dropped": 0,
    "kernels": [{"function": "_Z7vec_addPKfS0_Pfi", "cubin_crc": 1234, "function_index": 2,
                 "instructions": [{"pc_offset": 128, "values": {"smsp__sass_inst_executed": 2097152, "smsp__sass_thread_inst_executed": 67108864}},
                                  {"pc_offset": 144, "values": {"smsp__sass_inst_executed": 2097152, "smsp__sass_thread_inst_executed": 67108864}}]}],
    "kernels_dropped": 0, "instructions_dropped": 0, "seconds": 0.8})");
  f.json["candidate"]["sass_error"] = nullptr;
  f.inputs.worker_result = f.json;
  protocol::ProfileReport report = build_profile_report(f.inputs).report;
  ASSERT_TRUE(report.sass);
  ASSERT_TRUE(report.sass->available);
  ASSERT_EQ(report.sass->kernels.size(), 1u);
  EXPECT_EQ(report.sass->kernels[0].instructions[1].values.at("smsp__sass_thread_inst_executed"), 67108864u);
  report.plot = "/tmp/x.svg";
  nlohmann::json j = report;
  EXPECT_EQ(nlohmann::json(j.get<protocol::ProfileReport>()), j);
  EXPECT_NE(protocol::profile_text(report).find("Per-instruction counters: 2 SASS instructions of 1 kernel(s) "
                                                "(smsp__sass_inst_executed, smsp__sass_thread_inst_executed)"),
            std::string::npos)
      << protocol::profile_text(report);
  if (have_jsonschema()) {
    std::string validate = std::string("/usr/bin/python3 -c \"import json,sys,jsonschema; jsonschema.validate(json.load(sys.stdin), json.load(open('") +
                           HONE_PROFILE_SCHEMA + "')))\"";
    std::string out;
    EXPECT_EQ(run_shell(validate, j.dump(), out), 0) << out;
    j["sass"]["kernels"][0]["instructions"][0]["values"]["smsp__sass_inst_executed"] = -1;
    EXPECT_NE(run_shell(validate, j.dump(), out), 0) << "a negative count is not a count";
  }

  f.json["candidate"]["sass"] = nullptr;
  f.json["candidate"]["sass_error"] = {{"code", "insufficient_privileges"}, {"call", "cuptiSassMetricsSetConfig"},
                                       {"message", "GPU performance counters are restricted to administrators"}};
  f.inputs.worker_result = f.json;
  protocol::ProfileReport failed = build_profile_report(f.inputs).report;
  ASSERT_TRUE(failed.sass);
  EXPECT_FALSE(failed.sass->available);
  EXPECT_EQ(failed.sass->code, "insufficient_privileges");
  bool noted = false;
  for (const std::string& n : failed.notes)
    noted = noted || n == "no per-instruction (SASS) counters: GPU performance counters are restricted to administrators";
  EXPECT_TRUE(noted);
}

TEST(ProfileReport, VecAddNumbersAndBaseline) {
  auto f = load_fixture("vec_add_2p26");
  f.json["reference"] = f.json["candidate"];  // the recording has no reference: the same call, as a baseline
  f.inputs.worker_result = f.json;
  ProfileOutput built = build_profile_report(f.inputs);
  nlohmann::json rj = built.report;
  const nlohmann::json& cand = rj["candidate"];
  double bytes = cand["kernels"][0]["derived"]["dram_bytes"].get<double>();
  EXPECT_DOUBLE_EQ(bytes, 813816064.0) << "recorded dram__bytes_read.sum + dram__bytes_write.sum";
  EXPECT_NEAR(bytes / (12.0 * (1 << 26)), 1.0106, 1e-4);
  EXPECT_EQ(cand["roofline"]["bound"], "memory");
  EXPECT_NEAR(cand["roofline"]["memory_pct"].get<double>(), 100.0 * bytes / 244.767e-6 / 4.8e12, 1e-6);
  EXPECT_EQ(cand["roofline"]["dram_source"], "spec");
  EXPECT_DOUBLE_EQ(cand["own_share"].get<double>(), 1.0);
  EXPECT_EQ(rj["reference"]["roofline"]["label"], "reference");
  EXPECT_FALSE(rj["reference"]["kernels"][0]["own"].get<bool>());
  EXPECT_EQ(rj["spec"]["key"], "h200");
  EXPECT_EQ(rj["candidate"]["counters"]["passes"], 2);
}

TEST(ProfileReport, MeasuredCeilingsAreUsedWhenKnown) {
  auto f = load_fixture("vec_add_2p26");
  f.inputs.measured = nlohmann::json({{"device_name", "NVIDIA H200"}, {"dram_copy_bytes_per_s", 4.3e12}}).get<MeasuredCeilings>();
  nlohmann::json j = nlohmann::json(build_profile_report(f.inputs).report);
  EXPECT_EQ(j["candidate"]["roofline"]["dram_source"], "measured");
  EXPECT_DOUBLE_EQ(j["ceilings"]["dram_bytes_per_s"]["value"].get<double>(), 4.3e12);
  EXPECT_EQ(j["measured_ceilings"]["device_name"], "NVIDIA H200");
}

TEST(ProfileReport, FmaLoopReportsTheFlopCountExactly) {
  auto f = load_fixture("fma_loop");
  nlohmann::json j = nlohmann::json(build_profile_report(f.inputs).report);
  EXPECT_DOUBLE_EQ(j["candidate"]["kernels"][0]["derived"]["flops"]["fp32"].get<double>(), 2.0 * (1 << 20) * 4096);
  EXPECT_EQ(j["candidate"]["roofline"]["precision"], "fp32");
  EXPECT_EQ(j["candidate"]["roofline"]["bound"], "latency") << "28.6 TFLOP/s: 43% of the FP32 peak";
}

TEST(ProfileReport, SvgIsWellFormedWithBothPoints) {
  auto f = load_fixture("matmul_bf16_cuda_cores");
  f.json["reference"] = f.json["candidate"];
  f.inputs.worker_result = f.json;
  ProfileOutput built = build_profile_report(f.inputs);
  nlohmann::json rj = built.report;
  ASSERT_FALSE(built.svg.empty());
  std::string out;
  int rc = run_shell(
      "/usr/bin/python3 -c \"import sys,xml.etree.ElementTree as E; t=E.fromstring(sys.stdin.read()); "
      "ns='{http://www.w3.org/2000/svg}'; print(len(t.findall(ns+'circle')), len(t.findall(ns+'polyline')))\"",
      built.svg, out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "2 2\n") << "two points (candidate, reference); the fp32 roof and the task's bf16 tensor roof";
  EXPECT_NE(built.svg.find("DRAM 4.80 TB/s (spec)"), std::string::npos);
}

TEST(ProfileReport, NoPlotWithoutCounters) {
  auto f = load_fixture("counters_unavailable");
  EXPECT_TRUE(build_profile_report(f.inputs).svg.empty());
}

TEST(ProfileReport, TextNamesKernelsRooflineAndSuggestions) {
  auto f = load_fixture("strided_gather");
  protocol::ProfileReport report = build_profile_report(f.inputs).report;
  report.plot = "/tmp/strided.svg";
  std::string text = protocol::profile_text(report);
  EXPECT_NE(text.find("Profile on NVIDIA H200 (counters: default set, 2 pass(es), cupti, chip GH100)"), std::string::npos) << text;
  EXPECT_NE(text.find("own hone::cupti_test::(anonymous namespace)::"), std::string::npos) << text;
  EXPECT_NE(text.find("candidate: memory-bound"), std::string::npos) << text;
  EXPECT_NE(text.find("1. Uncoalesced global loads: only 12.5%"), std::string::npos) << text;
  EXPECT_NE(text.find("Roofline plot: /tmp/strided.svg"), std::string::npos) << text;

  auto u = load_fixture("counters_unavailable");
  std::string none = protocol::profile_text(build_profile_report(u.inputs).report);
  EXPECT_NE(none.find("counters unavailable: cuptiProfilerGetCounterAvailability failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
            std::string::npos) << none;
  EXPECT_EQ(none.find("DRAM "), std::string::npos) << "no invented numbers: " << none;
}

TEST(ProfileReport, MalformedWorkerResultIsAnError) {
  ProfileInputs in;
  in.worker_result = {{"reference", nullptr}};
  EXPECT_THROW(build_profile_report(in), std::runtime_error);
  in.worker_result = {{"candidate", {{"activity", {{"kernels", {{{"duration_ns", 5}}}}}}}}};
  EXPECT_THROW(build_profile_report(in), std::runtime_error);
}

}  // namespace
}  // namespace hone::profile
