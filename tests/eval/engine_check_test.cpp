// tests/eval/engine_check_test.cpp: Engine::check end to end on the CPU: real g++ builds, the real
// Python worker under /usr/bin/python3 with real torch. Faults (segfault, abort, infinite loop,
// huge allocation, raise) each give their verdict with evidence, and the next check in the same
// Engine passes; bad input gives clear errors; the GPU path skips visibly without a GPU.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "protocol/verdict_text.h"
#include "engine/engine.h"
#include "support/hash.h"
#include "timing_withheld.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kCases = HONE_EVAL_CASES;

EngineOptions cpu_options() {
  EngineOptions o;
  o.device = DeviceKind::Auto;
  o.check_timeout = 60s;
  return o;
}

CheckRequest request(const std::string& kernel) {
  CheckRequest r;
  r.kernel.path = kCases / kernel;
  return r;
}

std::string describe(const protocol::Verdict& v) { return verdict_headline(v) + "\n" + verdict_details(v); }

// Every fault must leave the engine able to verify a correct kernel next.
void expect_next_check_passes(Engine& engine) {
  CheckRequest r = request("good_relu.cpp");
  r.timing = false;
  protocol::Verdict v = engine.check(r);
  EXPECT_EQ(v.status, protocol::Status::Correct) << describe(v);
}

EngineError::Kind error_kind(Engine& engine, const CheckRequest& r, std::string& message) {
  try {
    engine.check(r);
  } catch (const EngineError& e) {
    message = std::string(e.what()) + "\n" + e.detail();
    return e.kind();
  }
  ADD_FAILURE() << "expected an EngineError";
  return EngineError::Kind::Internal;
}

TEST(EngineCheck, CorrectKernelPassesWithTimingAndBaseline) {
  Engine engine(cpu_options());
  protocol::Verdict v = test::until_timed([&] { return engine.check(request("good_relu.cpp")); },
                                          [](const protocol::Verdict& r) { return test::withheld_reason(r); });
  ASSERT_EQ(v.status, protocol::Status::Correct) << describe(v);
  if (auto why = test::withheld_reason(v); !why.empty()) GTEST_SKIP() << "time withheld in every check: " << why;
  EXPECT_EQ(v.device.kind, "cpu");
  EXPECT_EQ(v.kernel.form, "raw");
  EXPECT_EQ(v.kernel.language, "cpp");
  EXPECT_EQ(v.kernel.hash.size(), 64u);
  EXPECT_EQ(v.task.hash.size(), 64u);
  ASSERT_TRUE(v.correctness);
  EXPECT_GE(v.correctness->trials.size(), 3u);
  for (const auto& t : v.correctness->trials) EXPECT_TRUE(t.passed);
  ASSERT_TRUE(v.timing);
  EXPECT_GT(v.timing->p50_us, 0);
  EXPECT_LE(v.timing->p10_us, v.timing->p50_us);
  EXPECT_LE(v.timing->p50_us, v.timing->p90_us);
  ASSERT_TRUE(v.baselines && v.baselines->eager);
  // A point speedup when both times are quiet; a range when a busy machine kept either noisy (issue 14).
  ASSERT_TRUE(v.speedup && (v.speedup->eager || v.speedup->eager_range)) << describe(v);
  if (v.speedup->eager) {
    EXPECT_NEAR(*v.speedup->eager, v.baselines->eager->p50_us / v.timing->p50_us, 1e-9);
  }
  EXPECT_FALSE(v.floor) << "the CPU has no physical floor";
  ASSERT_TRUE(v.toolchain);
  EXPECT_TRUE(v.toolchain->torch && !v.toolchain->torch->empty());
  // Seeds are fresh for every check.
  protocol::Verdict again = engine.check(request("good_relu.cpp"));
  ASSERT_EQ(again.status, protocol::Status::Correct) << describe(again);
  EXPECT_NE(again.correctness->trials[0].seed, v.correctness->trials[0].seed);
  EXPECT_TRUE(again.compile.cached);
}

TEST(EngineCheck, SegfaultIsARuntimeErrorWithTheSignal) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("segfault.cpp"));
  ASSERT_EQ(v.status, protocol::Status::RuntimeError) << describe(v);
  ASSERT_TRUE(v.evidence);
  EXPECT_EQ(v.evidence->signal.value_or(""), "SIGSEGV") << describe(v);
  EXPECT_FALSE(v.evidence->stderr_tail.empty());
  EXPECT_NE(v.reason->find("SIGSEGV"), std::string::npos) << *v.reason;
  expect_next_check_passes(engine);
}

TEST(EngineCheck, ExitingFromForwardIsARuntimeErrorThatSaysSoOnce) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("exits.cpp"));
  ASSERT_EQ(v.status, protocol::Status::RuntimeError) << describe(v);
  EXPECT_NE(v.reason->find("ended itself during forward (exit code 0): forward must return"), std::string::npos)
      << *v.reason;
  EXPECT_EQ(v.reason->find("crashed"), std::string::npos) << *v.reason;
  const std::size_t trial = v.reason->find("(trial 1, seed");
  ASSERT_NE(trial, std::string::npos) << *v.reason;
  EXPECT_EQ(v.reason->find("(trial 1, seed", trial + 1), std::string::npos) << "named twice: " << *v.reason;
  expect_next_check_passes(engine);
}

TEST(EngineCheck, AbortIsARuntimeErrorWithItsLastWords) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("abort.cpp"));
  ASSERT_EQ(v.status, protocol::Status::RuntimeError) << describe(v);
  ASSERT_TRUE(v.evidence);
  EXPECT_EQ(v.evidence->signal.value_or(""), "SIGABRT");
  bool said = false;
  for (const auto& l : v.evidence->stderr_tail) said = said || l.find("candidate: giving up") != std::string::npos;
  EXPECT_TRUE(said) << describe(v);
  expect_next_check_passes(engine);
}

TEST(EngineCheck, InfiniteLoopTimesOutAtTheDeadline) {
  Engine engine(cpu_options());
  CheckRequest r = request("infinite_loop.cpp");
  r.deadline = 4s;
  auto t0 = std::chrono::steady_clock::now();
  protocol::Verdict v = engine.check(r);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(v.status, protocol::Status::Timeout) << describe(v);
  EXPECT_LT(took, 30s);
  EXPECT_NE(v.reason->find("deadline"), std::string::npos) << *v.reason;
  ASSERT_TRUE(v.evidence);
  EXPECT_FALSE(v.evidence->stderr_tail.empty());
  expect_next_check_passes(engine);
}

TEST(EngineCheck, HugeAllocationIsARuntimeError) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("huge_alloc.cpp"));
  ASSERT_EQ(v.status, protocol::Status::RuntimeError) << describe(v);
  const std::string text = describe(v);
  EXPECT_TRUE(text.find("bad_alloc") != std::string::npos || text.find("memory") != std::string::npos) << text;
  expect_next_check_passes(engine);
}

TEST(EngineCheck, RaisingIsARuntimeErrorWithTheMessage) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("raises.cpp"));
  ASSERT_EQ(v.status, protocol::Status::RuntimeError) << describe(v);
  EXPECT_NE(describe(v).find("candidate refuses: unsupported shape"), std::string::npos) << describe(v);
  expect_next_check_passes(engine);
}

TEST(EngineCheck, WrongValuesAreIncorrectWithTheFirstMismatch) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("wrong_values.cpp"));
  ASSERT_EQ(v.status, protocol::Status::Incorrect) << describe(v);
  ASSERT_TRUE(v.correctness);
  ASSERT_FALSE(v.correctness->trials.empty());
  EXPECT_FALSE(v.correctness->trials[0].passed);
  std::string line = verdict_headline(v);
  EXPECT_EQ(line.rfind("✗ incorrect: ", 0), 0u) << line;
  EXPECT_NE(line.find(" got "), std::string::npos) << line;
  EXPECT_NE(line.find("expected"), std::string::npos) << line;
  EXPECT_NE(line.find("seed"), std::string::npos) << line;
  EXPECT_FALSE(v.timing) << "an incorrect kernel is not timed";
}

TEST(EngineCheck, WrongSignatureIsACompileErrorAtForwardWithTheExpectedSignature) {
  Engine engine(cpu_options());
  protocol::Verdict v = engine.check(request("wrong_signature.cpp"));
  ASSERT_EQ(v.status, protocol::Status::CompileError) << describe(v);
  ASSERT_TRUE(v.signature) << describe(v);
  EXPECT_EQ(v.signature->inputs.size(), 1u);
  EXPECT_NE(v.signature->raw.find("forward("), std::string::npos);
  bool at_forward = false;
  for (const auto& d : v.compile.diagnostics)
    at_forward = at_forward || (d.source == protocol::DiagnosticSource::Hone && d.line == 5);
  EXPECT_TRUE(at_forward) << describe(v);
  EXPECT_NE(verdict_details(v).find("expected forward:"), std::string::npos) << verdict_details(v);
}

TEST(EngineCheck, BadInputGivesClearErrors) {
  Engine engine(cpu_options());
  std::string message;
  EXPECT_EQ(error_kind(engine, request("no_such_kernel.cpp"), message), EngineError::Kind::Usage);
  EXPECT_NE(message.find("no_such_kernel.cpp"), std::string::npos) << message;

  CheckRequest r = request("good_relu.cpp");
  r.task = kCases / "no_such_task.py";
  EXPECT_EQ(error_kind(engine, r, message), EngineError::Kind::Usage);
  EXPECT_NE(message.find("no_such_task.py"), std::string::npos) << message;

  r.task = kCases / "no_model.py";
  EXPECT_EQ(error_kind(engine, r, message), EngineError::Kind::Task);
  EXPECT_NE(message.find("Model"), std::string::npos) << message;
  EXPECT_NE(message.find((kCases / "no_model.py").string()), std::string::npos) << "names the user's file: " << message;

  r.task = kCases / "inputs_raise.py";
  EXPECT_EQ(error_kind(engine, r, message), EngineError::Kind::Task);
  EXPECT_NE(message.find("get_inputs"), std::string::npos) << message;
  EXPECT_NE(message.find("the dataset is not available"), std::string::npos) << message;

  r.task = kCases / "malformed.py";
  EXPECT_EQ(error_kind(engine, r, message), EngineError::Kind::Task);
  EXPECT_NE(message.find("SyntaxError"), std::string::npos) << message;

  // After all that, the engine still verifies.
  expect_next_check_passes(engine);
}

TEST(EngineCheck, UnsavedBufferIsWhatGetsChecked) {
  Engine engine(cpu_options());
  CheckRequest r = request("good_relu.cpp");
  r.kernel.contents = read_file(kCases / "wrong_values.cpp");
  protocol::Verdict v = engine.check(r);
  EXPECT_EQ(v.status, protocol::Status::Incorrect) << describe(v);
}

TEST(EngineCheck, CancellationStopsAHungCheckAndTheEngineRecovers) {
  Engine engine(cpu_options());
  std::stop_source source;
  std::thread stopper([&] {
    std::this_thread::sleep_for(3s);
    source.request_stop();
  });
  CallContext ctx;
  ctx.stop = source.get_token();
  auto t0 = std::chrono::steady_clock::now();
  try {
    engine.check(request("infinite_loop.cpp"), ctx);
    ADD_FAILURE() << "expected cancellation";
  } catch (const EngineError& e) {
    EXPECT_EQ(e.kind(), EngineError::Kind::Cancelled) << e.what();
  }
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
  expect_next_check_passes(engine);
}

TEST(EngineCheck, ConcurrentChecksShareTheWorker) {
  Engine engine(cpu_options());
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      CheckRequest r = request("good_relu.cpp");
      r.baselines = false;
      if (engine.check(r).status == protocol::Status::Correct) ++correct;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(correct.load(), 3);
}

TEST(EngineCheck, ProgressIsReported) {
  Engine engine(cpu_options());
  std::vector<std::string> stages;
  CallContext ctx;
  ctx.progress = [&](const Progress& p) { stages.push_back(p.stage); };
  engine.check(request("good_relu.cpp"), ctx);
  auto has = [&](const char* s) { return std::find(stages.begin(), stages.end(), s) != stages.end(); };
  EXPECT_TRUE(has("build"));
  EXPECT_TRUE(has("worker"));
}

TEST(EngineTask, SignatureOfATask) {
  Engine engine(cpu_options());
  TaskInfo info = engine.task_info(kCases / "relu_small.py", DeviceKind::Cpu);
  ASSERT_EQ(info.signature.inputs.size(), 1u);
  EXPECT_EQ(info.signature.inputs[0].name, "x");
  EXPECT_EQ(info.signature.inputs[0].dtype.value_or(""), "float32");
  EXPECT_EQ(info.signature.inputs[0].shape, (std::vector<std::int64_t>{64, 256}));
  ASSERT_EQ(info.signature.outputs.size(), 1u);
  EXPECT_TRUE(info.signature.params.empty());
  EXPECT_NE(info.signature.torch.find("torch::Tensor forward(torch::Tensor x)"), std::string::npos) << info.signature.torch;
  EXPECT_EQ(info.hash.size(), 64u);
}

TEST(EngineGpu, CudaKernelWithoutAGpuIsBuiltThenRefusedForWantOfAGpu) {
  Engine engine(cpu_options());
  if (!engine.environment(DeviceKind::Cuda).devices.empty()) GTEST_SKIP() << "this machine has a GPU";
  std::string message;
  EXPECT_EQ(error_kind(engine, request("relu_gpu.cu"), message), EngineError::Kind::NoGpu);
  EXPECT_NE(message.find("relu_gpu.cu built for sm_"), std::string::npos) << message;
  EXPECT_NE(message.find("needs a GPU"), std::string::npos) << message;
  EXPECT_NE(message.find("sees no GPU"), std::string::npos) << message;
}

TEST(EngineGpu, CudaKernelThatDoesNotCompileWithoutAGpuIsACompileErrorVerdict) {
  Engine engine(cpu_options());
  if (!engine.environment(DeviceKind::Cuda).devices.empty()) GTEST_SKIP() << "this machine has a GPU";
  protocol::Verdict v = engine.check(request("broken_gpu.cu"));
  ASSERT_EQ(v.status, protocol::Status::CompileError) << describe(v);
  bool on_line_6 = false;
  for (const auto& d : v.compile.diagnostics)
    on_line_6 |= d.severity == protocol::Severity::Error && d.line == 6 && d.file.ends_with("broken_gpu.cu");
  EXPECT_TRUE(on_line_6) << describe(v);
  EXPECT_EQ(v.device.kind, "cuda");
  ASSERT_FALSE(v.flags.empty());
  EXPECT_EQ(v.flags.back().id, "no_gpu");
  EXPECT_NE(v.flags.back().message.find("needs a GPU"), std::string::npos) << v.flags.back().message;
}

TEST(EngineGpu, CudaKernelPassesOnTheGpu) {
  Engine engine(cpu_options());
  if (engine.environment(DeviceKind::Cuda).devices.empty()) GTEST_SKIP() << "no GPU visible to the eval worker here";
  protocol::Verdict v = engine.check(request("relu_gpu.cu"));
  ASSERT_EQ(v.status, protocol::Status::Correct) << describe(v);
  EXPECT_EQ(v.device.kind, "cuda");
  ASSERT_TRUE(v.floor);
  EXPECT_GT(v.floor->floor_us, 0);
  ASSERT_TRUE(v.timing);
  EXPECT_EQ(v.timing->method, "cuda_events_l2_flush");
}

}  // namespace
}  // namespace hone
