// tests/eval/cli_check_test.cpp: the real `hone check` and `hone task` binaries: exit codes (0
// correct, 1 any other verdict, 2 usage or environment error, 3 a .cu kernel that built where
// there is no GPU), the readable summary, and
// `--json` verdicts validated against protocol/schema/verdict.schema.json with python3-jsonschema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "timing_withheld.h"

namespace hone {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kCases = HONE_EVAL_CASES;

ProcessResult hone_cli(std::vector<std::string> args, int timeout_s = 300) {
  ProcessSpec spec;
  spec.argv = {HONE_CLI};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(timeout_s);
  return run_process(spec);
}

// Validates every JSON line of `out` against the verdict schema; returns the validator's message.
std::string validate(const std::string& out) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", HONE_EVAL_VALIDATOR, HONE_VERDICT_SCHEMA};
  spec.stdin_data = out;
  spec.timeout = std::chrono::seconds(60);
  ProcessResult r = run_process(spec);
  return r.ok() ? "" : r.describe() + ": " + r.err + r.out;
}

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> lines;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    if (end > start) lines.push_back(json::parse(out.substr(start, end - start)));
    start = end + 1;
  }
  return lines;
}

// The first JSON line of `out` (null when there is none: the caller's assertions say why).
json first_line(const std::string& out) {
  try {
    auto lines = json_lines(out);
    return lines.empty() ? json() : lines[0];
  } catch (const json::exception&) {
    return json();
  }
}

std::string path(const char* name) { return (kCases / name).string(); }

TEST(HoneCheckCli, CorrectKernelExitsZeroWithAValidVerdict) {
  ProcessResult r = test::until_timed([] { return hone_cli({"check", path("good_relu.cpp"), "--json"}); },
                                      [](const ProcessResult& p) { return test::withheld_reason(first_line(p.out)); });
  ASSERT_TRUE(r.started) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["status"], "correct");
  if (auto why = test::withheld_reason(lines[0]); !why.empty()) GTEST_SKIP() << "time withheld in every check: " << why;
  EXPECT_EQ(lines[0]["schema_version"], 1);
  EXPECT_TRUE(lines[0]["timing"]["p50_us"].is_number());
  EXPECT_TRUE(lines[0]["baselines"]["eager"]["p50_us"].is_number());
  // A point speedup when both timings were quiet, else (a busy machine, issue 14) a range.
  const json& speedup = lines[0]["speedup"];
  EXPECT_TRUE(speedup["eager"].is_number() || (speedup["eager_range"].is_object() && speedup["eager_range"]["low"].is_number()))
      << speedup;
  EXPECT_EQ(validate(r.out), "");
}

TEST(HoneCheckCli, SeveralKernelsInOneCallShareTheWorkerAndEachGetsAValidVerdict) {
  ProcessResult r = hone_cli({"check", path("wrong_values.cpp"), path("segfault.cpp"), path("wrong_signature.cpp"),
                              path("good_relu.cpp"), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0]["status"], "incorrect");
  EXPECT_EQ(lines[1]["status"], "runtime_error");
  EXPECT_EQ(lines[1]["evidence"]["signal"], "SIGSEGV");
  EXPECT_EQ(lines[2]["status"], "compile_error");
  EXPECT_EQ(lines[3]["status"], "correct");
  for (const auto& l : lines) EXPECT_TRUE(l["reason"].is_string() || l["status"] == "correct") << l.dump();
  EXPECT_EQ(validate(r.out), "");
}

TEST(HoneCheckCli, ReadableSummaries) {
  // The headline of a time withheld on a busy machine says so (tests/common/timing_withheld.h).
  auto busy = [](const ProcessResult& p) {
    return p.out.find("no time (machine busy)") == std::string::npos ? std::string() : p.out;
  };
  ProcessResult ok = test::until_timed([] { return hone_cli({"check", path("good_relu.cpp")}); }, busy);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.rfind("✓ correct · ", 0), 0u) << ok.out;
  if (busy(ok).empty()) {
    EXPECT_NE(ok.out.find("× eager"), std::string::npos) << ok.out;
  }

  ProcessResult bad = hone_cli({"check", path("wrong_values.cpp")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out.rfind("✗ incorrect: out[", 0), 0u) << bad.out;

  ProcessResult sig = hone_cli({"check", path("wrong_signature.cpp")});
  EXPECT_EQ(sig.exit_code, 1);
  EXPECT_NE(sig.out.find("expected forward:"), std::string::npos) << sig.out;
  EXPECT_NE(sig.out.find("void forward(hone::In<float> x, hone::Out<float> out"), std::string::npos) << sig.out;
  EXPECT_NE(sig.out.find("wrong_signature.cpp:5: the forward that does not fit"), std::string::npos) << sig.out;
}

TEST(HoneCheckCli, TimeoutIsAVerdictNotAnError) {
  ProcessResult r = hone_cli({"check", path("infinite_loop.cpp"), "--timeout", "3", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["status"], "timeout");
  EXPECT_EQ(validate(r.out), "");
}

TEST(HoneCheckCli, UsageAndEnvironmentErrorsExitTwo) {
  ProcessResult missing = hone_cli({"check", path("no_such_kernel.cpp")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("hone: error:"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("no_such_kernel.cpp"), std::string::npos) << missing.err;

  ProcessResult no_model = hone_cli({"check", path("good_relu.cpp"), "--task", path("no_model.py")});
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_NE(no_model.err.find("Model"), std::string::npos) << no_model.err;

  EXPECT_EQ(hone_cli({"check", path("good_relu.cpp"), "--seeds", "0"}).exit_code, 2);
  EXPECT_EQ(hone_cli({"check", path("good_relu.cpp"), "--device", "tpu"}).exit_code, 2);
  ProcessResult wrong_device = hone_cli({"check", path("good_relu.cpp"), "--device", "cuda"});
  EXPECT_EQ(wrong_device.exit_code, 2);
  EXPECT_NE(wrong_device.err.find("runs on the CPU device"), std::string::npos) << wrong_device.err;

  ProcessResult no_python = hone_cli({"check", path("good_relu.cpp"), "--python", "/nonexistent/python3"});
  EXPECT_EQ(no_python.exit_code, 2);
  EXPECT_NE(no_python.err.find("/nonexistent/python3"), std::string::npos) << no_python.err;
}

TEST(HoneCheckCli, CudaKernelWithoutAGpuBuildsThenExitsThreeSayingItNeedsOne) {
  ProcessResult r = hone_cli({"check", path("relu_gpu.cu")});
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a GPU: the kernel passed";
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("relu_gpu.cu built for sm_"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("needs a GPU"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sees no GPU"), std::string::npos) << r.err;
}

TEST(HoneCheckCli, BrokenCudaKernelWithoutAGpuShowsNvccsErrorsThenSaysItNeedsAGpu) {
  ProcessResult r = hone_cli({"check", path("broken_gpu.cu")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto error = r.out.find("broken_gpu.cu:6:");
  EXPECT_NE(error, std::string::npos) << r.out;
  if (!fs::exists("/dev/nvidiactl")) {  // without a GPU: after the errors, what the run would need
    const auto gpu = r.out.find("needs a GPU");
    EXPECT_NE(gpu, std::string::npos) << r.out;
    EXPECT_LT(error, gpu) << r.out;
  }
  ProcessResult j = hone_cli({"check", path("broken_gpu.cu"), "--json"});
  EXPECT_EQ(j.exit_code, 1) << j.err;
  EXPECT_EQ(validate(j.out), "");
  auto lines = json_lines(j.out);
  ASSERT_EQ(lines.size(), 1u) << j.out;
  EXPECT_EQ(lines[0]["status"], "compile_error");
}

TEST(HoneTaskCli, PrintsTheForwardSignature) {
  ProcessResult r = hone_cli({"task", path("relu_small.py")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("x: float32[64, 256]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch::Tensor forward(torch::Tensor x)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("void forward(hone::In<float> x"), std::string::npos) << r.out;

  ProcessResult j = hone_cli({"task", path("relu_small.py"), "--json", "--time", "eager"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  json info = json::parse(j.out);
  EXPECT_EQ(info["signature"]["inputs"][0]["shape"], json::array({64, 256}));
  EXPECT_TRUE(info["reference"]["eager"]["p50_us"].is_number()) << j.out;

  ProcessResult bad = hone_cli({"task", path("inputs_raise.py")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("get_inputs"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace hone
