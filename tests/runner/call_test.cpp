// tests/runner/call_test.cpp: load and call on the CPU through the real hone-runner: outputs land
// in the judge's arena, inputs stay as they were, each failure has its error kind, a crash ends
// only the runner, and nothing a kernel prints reaches the protocol.
#include <signal.h>
#include <sys/wait.h>

#include <vector>

#include "runner_fixture.h"

namespace hone::runner_test {
namespace {

constexpr std::size_t kN = 256;

class CallTest : public RunnerTest {
 protected:
  void SetUp() override {
    start();
    fill(arena_.at<float>(), kN, 1.0f);
    poison(arena_.at<float>(kN * sizeof(float)), kN);
    ASSERT_EQ(kind_of(map_host(1, arena_)), "ok");
  }
  json x() const { return tensor_arg(buf(1, 0, {16, 16})); }
  json out() const { return buf(1, kN * sizeof(float), {16, 16}); }
  const float* input() const { return arena_.at<float>(); }
  const float* output() const { return arena_.at<float>(kN * sizeof(float)); }
  json call(json args, const std::string& label = "test") {
    return runner().request("call", {{"args", std::move(args)}, {"outputs", json::array({out()})}, {"label", label}});
  }

  MemfdArena arena_{2 * kN * sizeof(float)};
};

TEST_F(CallTest, ForwardWritesTheOutputsIntoTheArenaAndLeavesTheInputs) {
  const json loaded = load("scale");
  ASSERT_EQ(kind_of(loaded), "ok") << loaded.dump();
  EXPECT_EQ(loaded["declared"], "in:float32,scalar:float,scalar:int,out:float32,stream");
  EXPECT_EQ(loaded["params"], json::array());
  std::vector<float> before(input(), input() + kN);
  const json r = call(json::array({x(), float_arg(2.5), int_arg(0)}));
  ASSERT_EQ(kind_of(r), "ok") << r.dump();
  EXPECT_GE(r["call_us"].get<double>(), 0.0);
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(output()[i], (1.0f + static_cast<float>(i)) * 2.5f) << i;
  EXPECT_EQ(std::vector<float>(input(), input() + kN), before);
  EXPECT_NE(runner().stderr_text().find("hone-runner: calling candidate forward (test)"), std::string::npos);
}

TEST_F(CallTest, ATransposedInputIsReadThroughItsStrides) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  const json xt = tensor_arg(buf(1, 0, {16, 16}, std::vector<std::int64_t>{1, 16}));
  ASSERT_EQ(kind_of(call(json::array({xt, float_arg(1), int_arg(0)}))), "ok");
  for (std::size_t r = 0; r < 16; ++r)
    for (std::size_t c = 0; c < 16; ++c) ASSERT_EQ(output()[r * 16 + c], input()[c * 16 + r]);
}

TEST_F(CallTest, AnErrorFromForwardIsAForwardErrorWithItsMessage) {
  ASSERT_EQ(kind_of(load("fails")), "ok");
  const json r = call(json::array({x()}));
  ASSERT_EQ(kind_of(r), "forward_error") << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("row 3 is not finite"), std::string::npos) << r.dump();
  EXPECT_EQ(kind_of(call(json::array({x()}))), "forward_error");  // the process still answers
}

TEST_F(CallTest, ArgumentsThatDoNotFitTheSignatureAreAForwardError) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  json r = call(json::array({x(), float_arg(1)}));
  ASSERT_EQ(kind_of(r), "forward_error");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("forward takes 4 arguments"), std::string::npos) << r.dump();
  r = call(json::array({float_arg(1), float_arg(1), int_arg(0)}));
  EXPECT_EQ(kind_of(r), "forward_error") << r.dump();
}

TEST_F(CallTest, ALibraryThatIsNotAHoneKernelIsALoadError) {
  const json r = load("not_a_kernel");
  ASSERT_EQ(kind_of(r), "load_error");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("not a raw-form hone kernel"), std::string::npos) << r.dump();
}

TEST_F(CallTest, AnotherAbiVersionIsALoadError) {
  const json r = load("abi2");
  ASSERT_EQ(kind_of(r), "load_error");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("version 2"), std::string::npos) << r.dump();
}

TEST_F(CallTest, AMissingLibraryIsALoadError) {
  const json r = runner().request("load", {{"form", "raw"}, {"library", "/nonexistent/kernel.so"}});
  ASSERT_EQ(kind_of(r), "load_error");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("/nonexistent/kernel.so"), std::string::npos);
}

TEST_F(CallTest, ASecondLoadIsABadRequest) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  EXPECT_EQ(kind_of(load("scale")), "bad_request");
  EXPECT_EQ(kind_of(runner().request("load", {{"form", "null"}})), "bad_request");
}

TEST_F(CallTest, TheNullFormRunsNothingAndLeavesRoomForTheCandidate) {
  const json null_load = runner().request("load", {{"form", "null"}});
  ASSERT_EQ(kind_of(null_load), "ok");
  EXPECT_EQ(null_load["declared"], "");
  ASSERT_EQ(kind_of(call(json::array({x()}))), "ok");
  EXPECT_TRUE(std::isnan(output()[0]));  // nothing ran
  ASSERT_EQ(kind_of(load("scale")), "ok");
  ASSERT_EQ(kind_of(call(json::array({x(), float_arg(1), int_arg(0)}))), "ok");
  EXPECT_EQ(output()[0], 1.0f);
}

TEST_F(CallTest, ACrashingKernelEndsOnlyTheRunner) {
  ASSERT_EQ(kind_of(load("crash")), "ok");
  runner().send({{"id", 9}, {"op", "call"}, {"args", json::array({x()})}, {"outputs", json::array({out()})}, {"label", "the crash"}});
  EXPECT_FALSE(runner().receive().has_value());
  const int status = runner().wait();
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
  EXPECT_NE(runner().stderr_text().find("calling candidate forward (the crash)"), std::string::npos);
}

TEST_F(CallTest, WhatAKernelPrintsGoesToStderrNeverToTheSocket) {
  ASSERT_EQ(kind_of(load("noisy")), "ok");
  for (int i = 0; i < 3; ++i) {
    const json r = call(json::array({x()}));  // request() checks the reply's id
    ASSERT_EQ(kind_of(r), "ok") << r.dump();
    EXPECT_FALSE(r.contains("printed_by")) << r.dump();
  }
  EXPECT_TRUE(runner().events().empty());
  EXPECT_EQ(output()[5], input()[5]);
  EXPECT_EQ(kind_of(runner().request("exit")), "ok");
  runner().wait();
  const std::string err = runner().stderr_text();
  EXPECT_NE(err.find("\"printed_at\": \"load\""), std::string::npos) << err;
  EXPECT_NE(err.find("\"printed_by\": \"printf\""), std::string::npos) << err;
  EXPECT_NE(err.find("\"printed_by\": \"cout\""), std::string::npos) << err;
  EXPECT_NE(err.find("\"printed_by\": \"write\""), std::string::npos) << err;
}

TEST_F(CallTest, RecordsOnTheCpuTimeOneCallAndHaveNoActivities) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  const json r = runner().request("records", {{"args", json::array({x(), float_arg(3), int_arg(200)})},
                                              {"outputs", json::array({out()})}});
  ASSERT_EQ(kind_of(r), "ok") << r.dump();
  EXPECT_EQ(r["activities"], json::array());
  EXPECT_TRUE(r["caller_stream"].is_null());
  EXPECT_GE(r["timed_us"].get<double>(), 200.0);
  EXPECT_EQ(output()[1], 6.0f);
}

}  // namespace
}  // namespace hone::runner_test
