// tests/profile/report_test.cpp: the profile report of every fixture validates against
// protocol/schema/profile.schema.json (python3-jsonschema), the SVG plot is well-formed XML with
// both points, and the text rendering says what a user needs.
#include <gtest/gtest.h>

#include <filesystem>

#include "fixture.h"
#include "profile/report.h"

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
    ProfileReport r = build_profile_report(f.inputs);
    r.json["plot"] = "/tmp/x.svg";
    std::string out;
    EXPECT_EQ(run_shell(validate, r.json.dump(), out), 0) << out;
  }
}

TEST(ProfileReport, SchemaRejectsAnInventedShape) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  auto f = load_fixture("strided_gather");
  nlohmann::json j = build_profile_report(f.inputs).json;
  j["suggestions"][0]["evidence"] = nlohmann::json::array();  // a suggestion without evidence
  std::string validate = std::string("/usr/bin/python3 -c \"import json,sys,jsonschema; jsonschema.validate(json.load(sys.stdin), json.load(open('") +
                         HONE_PROFILE_SCHEMA + "')))\"";
  std::string out;
  EXPECT_NE(run_shell(validate, j.dump(), out), 0);
}

TEST(ProfileReport, VecAddNumbersAndBaseline) {
  auto f = load_fixture("vec_add_2p26");
  ProfileReport r = build_profile_report(f.inputs);
  const nlohmann::json& cand = r.json["candidate"];
  double bytes = cand["kernels"][0]["derived"]["dram_bytes"].get<double>();
  EXPECT_NEAR(bytes / (12.0 * (1 << 26)), 1.012, 1e-9);
  EXPECT_EQ(cand["roofline"]["bound"], "memory");
  EXPECT_NEAR(cand["roofline"]["memory_pct"].get<double>(), 100.0 * bytes / 190e-6 / 4.8e12, 1e-6);
  EXPECT_EQ(cand["roofline"]["dram_source"], "spec");
  EXPECT_DOUBLE_EQ(cand["own_share"].get<double>(), 1.0);
  EXPECT_EQ(r.json["reference"]["roofline"]["label"], "reference");
  EXPECT_FALSE(r.json["reference"]["kernels"][0]["own"].get<bool>());
  EXPECT_EQ(r.json["spec"]["key"], "h200");
  EXPECT_EQ(r.json["candidate"]["counters"]["passes"], 2);
}

TEST(ProfileReport, MeasuredCeilingsAreUsedWhenKnown) {
  auto f = load_fixture("vec_add_2p26");
  f.inputs.measured = measured_ceilings_from_json({{"device_name", "NVIDIA H200"}, {"dram_copy_bytes_per_s", 4.3e12}});
  nlohmann::json j = build_profile_report(f.inputs).json;
  EXPECT_EQ(j["candidate"]["roofline"]["dram_source"], "measured");
  EXPECT_DOUBLE_EQ(j["ceilings"]["dram_bytes_per_s"]["value"].get<double>(), 4.3e12);
  EXPECT_EQ(j["measured_ceilings"]["device_name"], "NVIDIA H200");
}

TEST(ProfileReport, FmaLoopReportsTheFlopCountExactly) {
  auto f = load_fixture("fma_loop");
  nlohmann::json j = build_profile_report(f.inputs).json;
  EXPECT_DOUBLE_EQ(j["candidate"]["kernels"][0]["derived"]["flops"]["fp32"].get<double>(), 2.0 * (1 << 20) * 4096);
  EXPECT_EQ(j["candidate"]["roofline"]["precision"], "fp32");
  EXPECT_EQ(j["candidate"]["roofline"]["bound"], "compute");
}

TEST(ProfileReport, SvgIsWellFormedWithBothPoints) {
  auto f = load_fixture("matmul_bf16_cuda_cores");
  f.json["reference"] = f.json["candidate"];
  f.inputs.worker_result = f.json;
  ProfileReport r = build_profile_report(f.inputs);
  ASSERT_FALSE(r.svg.empty());
  std::string out;
  int rc = run_shell(
      "/usr/bin/python3 -c \"import sys,xml.etree.ElementTree as E; t=E.fromstring(sys.stdin.read()); "
      "ns='{http://www.w3.org/2000/svg}'; print(len(t.findall(ns+'circle')), len(t.findall(ns+'polyline')))\"",
      r.svg, out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "2 2\n") << "two points (candidate, reference); the fp32 roof and the task's bf16 tensor roof";
  EXPECT_NE(r.svg.find("DRAM 4.80 TB/s (spec)"), std::string::npos);
}

TEST(ProfileReport, NoPlotWithoutCounters) {
  auto f = load_fixture("counters_unavailable");
  EXPECT_TRUE(build_profile_report(f.inputs).svg.empty());
}

TEST(ProfileReport, TextNamesKernelsRooflineAndSuggestions) {
  auto f = load_fixture("strided_gather");
  nlohmann::json j = build_profile_report(f.inputs).json;
  j["plot"] = "/tmp/strided.svg";
  std::string text = render_profile_text(j);
  EXPECT_NE(text.find("Profile on NVIDIA H200 (counters: default set, 2 pass(es), cupti, chip GH100)"), std::string::npos) << text;
  EXPECT_NE(text.find("own strided_gather(float const*, float*, int)"), std::string::npos) << text;
  EXPECT_NE(text.find("candidate: memory-bound"), std::string::npos) << text;
  EXPECT_NE(text.find("1. Uncoalesced global loads: only 12.5%"), std::string::npos) << text;
  EXPECT_NE(text.find("at /work/kernels/strided_gather.cu:9"), std::string::npos) << text;
  EXPECT_NE(text.find("Roofline plot: /tmp/strided.svg"), std::string::npos) << text;

  auto u = load_fixture("counters_unavailable");
  std::string none = render_profile_text(build_profile_report(u.inputs).json);
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
