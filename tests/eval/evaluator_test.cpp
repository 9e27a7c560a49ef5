// tests/eval/evaluator_test.cpp: the eval client's own stages (physical floor, baselines and their
// disk cache, speedups, the re-check of a speedup over 10x, kernel and task errors) against a
// scripted protocol peer that answers `check` and `time_reference` with planned results, so each
// branch is reached deterministically. The real worker drives the same code in engine_check_tests.
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "support/hash.h"

namespace hone::eval {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class EvaluatorTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hone-evaluator-" + std::to_string(::getpid()) + "-" + testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A slot whose worker answers with `plan`.
  std::unique_ptr<WorkerSlot> slot(const json& plan) {
    write_file_atomic(dir_ / "plan.json", plan.dump());
    WorkerSlotOptions o;
    o.device = protocol::Device::cuda(0);
    const fs::path plan_path = dir_ / "plan.json", log_path = dir_ / "requests.jsonl";
    o.make_spec = [plan_path, log_path] {
      ProcessSpec spec;
      spec.argv = {"/usr/bin/python3", std::string(HONE_EVAL_FIXTURES) + "/scripted_worker.py"};
      auto env = current_environment();
      env["SCRIPTED_WORKER_PLAN"] = plan_path.string();
      env["SCRIPTED_WORKER_LOG"] = log_path.string();
      spec.env = env;
      return spec;
    };
    return std::make_unique<WorkerSlot>(std::move(o));
  }

  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(dir_ / "requests.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  EvalRequest request() const {
    EvalRequest r;
    r.task = dir_ / "task.py";
    r.task_hash = "task-hash-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name());
    r.device = protocol::Device::cuda(0);
    r.kernel = {dir_ / "kernel.so", "raw", "", {"relu_kernel"}};
    r.deadline = 20s;
    return r;
  }

  fs::path dir_;
};

// A check result as the worker sends it: 2^28 floats in and out.
json correct_result(double p50_us) {
  json spec{{"name", "x"}, {"kind", "tensor"}, {"dtype", "float32"}, {"shape", {16384, 16384}}};
  json out{{"name", "out"}, {"kind", "tensor"}, {"dtype", "float32"}, {"shape", {16384, 16384}}};
  return json{{"status", "correct"},
              {"signature", {{"inputs", {spec}}, {"params", json::array()}, {"outputs", {out}}}},
              {"correctness", {{"atol", 1e-4}, {"rtol", 1e-4}, {"trials", {{{"seed", 1}, {"passed", true}}}}}},
              {"timing", {{"p50_us", p50_us}, {"p10_us", p50_us}, {"p90_us", p50_us}, {"reps", 100}, {"method", "cuda_events_l2_flush"}}},
              {"flags", json::array()}};
}

json timing(double p50_us) {
  return json{{"timing", {{"p50_us", p50_us}, {"p10_us", p50_us}, {"p90_us", p50_us}, {"reps", 50}, {"method", "cuda_events_l2_flush"}}}};
}

// A reference timing the worker calls noisy: median `p50_us`, spread from p10 to p90.
json noisy_timing(double p50_us, double p10_us, double p90_us) {
  json t = timing(p50_us);
  t["timing"]["p10_us"] = p10_us;
  t["timing"]["p90_us"] = p90_us;
  t["noisy"] = true;
  t["spread"] = (p90_us - p10_us) / p50_us;
  return t;
}

DeviceContext h200() { return {"NVIDIA H200", "2.11.0", 4.8e12}; }

TEST_F(EvaluatorTest, FasterThanThePhysicalFloorIsRejectedBeforeAnyBaseline) {
  auto s = slot({{"check", {{{"result", correct_result(3.0)}}}}});
  BaselineCache cache(dir_ / "baselines");
  protocol::Verdict v = run_check(*s, cache, request(), h200(), {}, nullptr).verdict;
  EXPECT_EQ(v.status, protocol::Status::Rejected);
  ASSERT_TRUE(v.reason);
  EXPECT_NE(v.reason->find("below the physical floor of 447 µs"), std::string::npos) << *v.reason;
  ASSERT_TRUE(v.floor);
  EXPECT_NEAR(v.floor->floor_us, 447.4, 0.1);
  EXPECT_EQ(requests().size(), 1u) << "no reference timing for a rejected kernel";
}

TEST_F(EvaluatorTest, AnInternalErrorWhileTimingABaselineIsShownButNeverCached) {
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", correct_result(1000.0)}}}},
            {"time_reference", {{{"error", {{"code", "internal"}, {"message", "TypeError: a bug in hone"}}}},
                                {{"result", timing(2000.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalRequest r = request();
  r.compile_baseline = false;
  protocol::Verdict first = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  ASSERT_EQ(first.status, protocol::Status::Correct) << first.reason.value_or("");
  EXPECT_TRUE(first.has_flag("baseline_unavailable"));
  EXPECT_FALSE(first.speedup && first.speedup->eager);
  EXPECT_FALSE(cache.find({r.task_hash, "NVIDIA H200", "2.11.0", "eager"})) << "a bug's error was cached";
  protocol::Verdict second = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  ASSERT_TRUE(second.speedup && second.speedup->eager) << "the next check measures the baseline again";
  EXPECT_DOUBLE_EQ(*second.speedup->eager, 2.0);
  EXPECT_FALSE(second.has_flag("baseline_unavailable"));
}

TEST_F(EvaluatorTest, BaselinesAreMeasuredOnceAndCachedOnDisk) {
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", correct_result(1000.0)}}}},
            {"time_reference", {{{"result", timing(2000.0)}},
                                {{"error", {{"code", "unsupported"}, {"message", "torch.compile needs torch >= 2.0"}}}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  protocol::Verdict first = run_check(*s, cache, request(), h200(), {}, nullptr).verdict;
  ASSERT_EQ(first.status, protocol::Status::Correct) << first.reason.value_or("");
  ASSERT_TRUE(first.speedup);
  EXPECT_DOUBLE_EQ(first.speedup->eager.value_or(0), 2.0);
  EXPECT_FALSE(first.speedup->compile);
  EXPECT_FALSE(first.baselines->compile_measured);
  EXPECT_EQ(json(*first.baselines)["compile"], nullptr);
  const auto flag = std::find_if(first.flags.begin(), first.flags.end(),
                                 [](const protocol::Flag& f) { return f.id == "baseline_unavailable"; });
  ASSERT_NE(flag, first.flags.end()) << "a GPU verdict says why it has no torch.compile baseline";
  EXPECT_EQ(flag->message, "no torch.compile baseline: torch.compile needs torch >= 2.0");

  protocol::Verdict second = run_check(*s, cache, request(), h200(), {}, nullptr).verdict;
  EXPECT_DOUBLE_EQ(second.speedup->eager.value_or(0), 2.0);
  EXPECT_TRUE(second.has_flag("baseline_unavailable")) << "the cached reason is shown again";
  int reference_calls = 0;
  for (const auto& r : requests()) reference_calls += r["method"] == "time_reference";
  EXPECT_EQ(reference_calls, 2) << "eager and compile once each; the second check used the cache";
  // A different GPU is a different cache entry.
  EXPECT_FALSE(cache.find({request().task_hash, "NVIDIA A100", "2.11.0", "eager"}));
  EXPECT_TRUE(cache.find({request().task_hash, "NVIDIA H200", "2.11.0", "eager"}));
}

// Issue 14: a noisy baseline is never cached and never divided into a point speedup; the next
// check measures it afresh, and only a quiet pair of times gives a plain number.
TEST_F(EvaluatorTest, ANoisyBaselineIsNeverCachedAndGivesARangeNotAPoint) {
  json noisy = noisy_timing(2000.0, 1500.0, 3500.0);
  json busy_candidate = correct_result(1000.0);
  busy_candidate["timing"]["p90_us"] = 1600.0;  // the candidate's own timing is noisy too
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", busy_candidate}}, {{"result", correct_result(1000.0)}}}},
            {"time_reference", {{{"result", noisy}}, {{"result", timing(2200.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalRequest r = request();
  r.compile_baseline = false;
  const BaselineKey key{r.task_hash, "NVIDIA H200", "2.11.0", "eager"};
  auto noisy_flag = [](const protocol::Verdict& v) {
    return std::find_if(v.flags.begin(), v.flags.end(), [](const protocol::Flag& f) { return f.id == "baseline_noisy"; });
  };

  protocol::Verdict first = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  ASSERT_EQ(first.status, protocol::Status::Correct) << first.reason.value_or("");
  auto flag = noisy_flag(first);
  ASSERT_NE(flag, first.flags.end()) << "a speedup over a noisy baseline is never shown as clean";
  EXPECT_NE(flag->message.find("spread 100%"), std::string::npos) << flag->message;
  ASSERT_TRUE(first.speedup);
  EXPECT_FALSE(first.speedup->eager) << "no point speedup against a noisy baseline";
  ASSERT_TRUE(first.speedup->eager_range);
  EXPECT_DOUBLE_EQ(first.speedup->eager_range->low, 1.5);   // reference p10 / kernel p90
  EXPECT_DOUBLE_EQ(first.speedup->eager_range->high, 3.5);  // reference p90 / kernel p10
  EXPECT_TRUE(first.has_flag("speedup_range"));
  EXPECT_FALSE(cache.find(key)) << "a noisy baseline is never cached";

  // the candidate is noisy now: the baseline is measured afresh (quiet, so cached), the speedup a range
  protocol::Verdict second = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  EXPECT_EQ(noisy_flag(second), second.flags.end());
  ASSERT_TRUE(second.speedup);
  EXPECT_FALSE(second.speedup->eager);
  ASSERT_TRUE(second.speedup->eager_range);
  EXPECT_DOUBLE_EQ(second.speedup->eager_range->low, 2200.0 / 1600.0);
  EXPECT_DOUBLE_EQ(second.speedup->eager_range->high, 2.2);
  ASSERT_TRUE(cache.find(key));

  // both quiet: a plain number, the baseline from the cache
  protocol::Verdict third = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  EXPECT_DOUBLE_EQ(third.speedup->eager.value_or(0), 2.2);
  EXPECT_FALSE(third.speedup->eager_range);
  EXPECT_FALSE(third.has_flag("speedup_range"));
  EXPECT_EQ(third.speedup->basis, "call") << "no device time on either side here";
  int reference_calls = 0;
  for (const auto& q : requests()) reference_calls += q["method"] == "time_reference";
  EXPECT_EQ(reference_calls, 2);
}

// A CPU baseline timed while other processes loaded the machine (quiet but slow: a steady load
// does not spread it) is treated as noisy: flagged with the load, a range, never cached; the next
// check measures it again and caches the quiet one.
TEST_F(EvaluatorTest, ABaselineTimedOnABusyMachineIsNeverCached) {
  json busy = timing(6110.0);
  busy["noisy"] = true;
  busy["spread"] = 0.016;
  busy["busy_machine"] = true;
  busy["machine_load"] = {{"other_cpu_share", 0.48}, {"other_cpu_s", 1.9}, {"cpus", 2}, {"seconds", 2.0}, {"busy", true}};
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", correct_result(1000.0)}}}},
            {"time_reference", {{{"result", busy}}, {{"result", timing(2240.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalRequest r = request();
  r.compile_baseline = false;
  const BaselineKey key{r.task_hash, "NVIDIA H200", "2.11.0", "eager"};
  protocol::Verdict first = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  ASSERT_EQ(first.status, protocol::Status::Correct) << first.reason.value_or("");
  auto flag = std::find_if(first.flags.begin(), first.flags.end(),
                           [](const protocol::Flag& f) { return f.id == "baseline_noisy"; });
  ASSERT_NE(flag, first.flags.end()) << "a baseline from a busy machine is flagged";
  EXPECT_NE(flag->message.find("other processes kept 48% of this machine's CPUs busy"), std::string::npos)
      << flag->message;
  ASSERT_TRUE(first.speedup);
  EXPECT_FALSE(first.speedup->eager) << "no point speedup (6.1x) against a baseline slowed by the load";
  EXPECT_FALSE(cache.find(key)) << "never cached";
  protocol::Verdict second = run_check(*s, cache, r, h200(), {}, nullptr).verdict;
  EXPECT_DOUBLE_EQ(second.speedup->eager.value_or(0), 2.24) << "measured again on the quiet machine";
  EXPECT_TRUE(cache.find(key));
}

// The speedup divides the same time on both sides: device time when the kernel and the baselines
// have one, with the call-time speedups beside it.
TEST_F(EvaluatorTest, SpeedupsUseDeviceTimeOnBothSidesAndSayCallTimeToo) {
  auto with_times = [](json j, double call_us, double device_us) {
    json& t = j["timing"];
    t["call"] = {{"p50_us", call_us}, {"p10_us", call_us}, {"p90_us", call_us}, {"reps", 50}, {"method", "cuda_events"}};
    t["device"] = {{"p50_us", device_us}, {"p10_us", device_us}, {"p90_us", device_us}, {"reps", 50},
                   {"method", "cuda_events_held_stream"}};
    return j;
  };
  json plan{{"check", {{{"result", with_times(correct_result(1000.0), 1000.0, 800.0)}}}},
            {"time_reference", {{{"result", with_times(timing(2000.0), 2000.0, 1200.0)}},
                                {{"result", with_times(timing(9000.0), 9000.0, 900.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  protocol::Verdict v = run_check(*s, cache, request(), h200(), {}, nullptr).verdict;
  ASSERT_EQ(v.status, protocol::Status::Correct) << v.reason.value_or("");
  ASSERT_TRUE(v.speedup);
  EXPECT_EQ(v.speedup->basis, "device");
  EXPECT_DOUBLE_EQ(v.speedup->eager.value_or(0), 1.5);
  EXPECT_DOUBLE_EQ(v.speedup->compile.value_or(0), 900.0 / 800.0);
  ASSERT_TRUE(v.speedup->by_call);
  EXPECT_DOUBLE_EQ(v.speedup->call_eager.value_or(0), 2.0);
  EXPECT_DOUBLE_EQ(v.speedup->call_compile.value_or(0), 9.0);
  ASSERT_TRUE(cache.find({request().task_hash, "NVIDIA H200", "2.11.0", "compile"}));
  EXPECT_TRUE(cache.find({request().task_hash, "NVIDIA H200", "2.11.0", "compile"})->timing->device)
      << "the cached baseline keeps its device time";
}

TEST_F(EvaluatorTest, OverTenTimesIsRecheckedWithMoreSeedsAndFlagged) {
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", correct_result(1000.0)}}}},
            {"time_reference", {{{"result", timing(15000.0)}}, {{"result", timing(16000.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalResult result = run_check(*s, cache, request(), h200(), {}, nullptr);
  const protocol::Verdict& v = result.verdict;
  EXPECT_TRUE(result.rechecked);
  EXPECT_EQ(v.status, protocol::Status::Correct);
  EXPECT_TRUE(v.has_flag("speedup_over_10x"));
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[3]["method"], "check");
  EXPECT_EQ(reqs[3]["params"]["policy"]["seeds"].size(), 10u);
  EXPECT_EQ(reqs[3]["params"]["policy"]["timing"], false);
  for (auto seed : reqs[3]["params"]["policy"]["seeds"])
    for (auto first : reqs[0]["params"]["policy"]["seeds"]) EXPECT_NE(seed, first) << "re-check seeds are fresh";
}

// A noisy range whose middle passes 10x is re-verified, but only a speedup over 10x for sure (a
// point, or a range's low end) is flagged: an honest kernel timed on a loaded machine got
// speedup_over_10x from a 1.8-116x range.
TEST_F(EvaluatorTest, ARangeThatOnlyReachesPastTenTimesIsRecheckedButNotFlagged) {
  json noisy = noisy_timing(20000.0, 3000.0, 90000.0);
  json busy = noisy_timing(15000.0, 12000.0, 18000.0);  // all of it above 10x, but timed on a busy machine
  json noisy_candidate = correct_result(1000.0);
  noisy_candidate["timing"]["p10_us"] = 700.0;
  noisy_candidate["timing"]["p90_us"] = 1100.0;
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", correct_result(1000.0)}},
                       {{"result", correct_result(1000.0)}}, {{"result", correct_result(1000.0)}},
                       {{"result", noisy_candidate}}, {{"result", correct_result(1000.0)}}}},
            {"time_reference", {{{"result", noisy}}, {{"result", busy}}, {{"result", timing(15000.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalRequest r = request();
  r.compile_baseline = false;
  EvalResult straddling = run_check(*s, cache, r, h200(), {}, nullptr);
  ASSERT_TRUE(straddling.verdict.speedup && straddling.verdict.speedup->eager_range);
  EXPECT_DOUBLE_EQ(straddling.verdict.speedup->eager_range->low, 3.0);
  EXPECT_TRUE(straddling.rechecked) << "its middle (16x) is over 10x: re-verified with more seeds";
  EXPECT_EQ(straddling.verdict.status, protocol::Status::Correct);
  EXPECT_FALSE(straddling.verdict.has_flag("speedup_over_10x")) << "3-90x is not over 10x for sure";

  EvalResult busy_range = run_check(*s, cache, r, h200(), {}, nullptr);
  ASSERT_TRUE(busy_range.verdict.speedup && busy_range.verdict.speedup->eager_range);
  EXPECT_GT(busy_range.verdict.speedup->eager_range->low, 10.0);
  EXPECT_TRUE(busy_range.rechecked);
  EXPECT_FALSE(busy_range.verdict.has_flag("speedup_over_10x")) << "a noisy baseline says nothing for sure";

  // A quiet baseline, a noisy kernel: 15 / 1.1 = 13.6x at least, over 10x whatever the noise.
  EvalResult above = run_check(*s, cache, r, h200(), {}, nullptr);
  ASSERT_TRUE(above.verdict.speedup && above.verdict.speedup->eager_range);
  EXPECT_TRUE(above.rechecked);
  EXPECT_TRUE(above.verdict.has_flag("speedup_over_10x"));
}

TEST_F(EvaluatorTest, AFailedRecheckReplacesTheVerdict) {
  json incorrect{{"status", "incorrect"}, {"reason", "out[7] got 0, expected 1.5 (trial 4, seed 99)"},
                 {"correctness", {{"atol", 1e-4}, {"rtol", 1e-4}, {"trials", {{{"seed", 99}, {"passed", false}}}}}}};
  json plan{{"check", {{{"result", correct_result(1000.0)}}, {{"result", incorrect}}}},
            {"time_reference", {{{"result", timing(30000.0)}}, {{"result", timing(30000.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  protocol::Verdict v = run_check(*s, cache, request(), h200(), {}, nullptr).verdict;
  EXPECT_EQ(v.status, protocol::Status::Incorrect);
  ASSERT_TRUE(v.reason);
  EXPECT_NE(v.reason->find("30.0× speedup failed its re-check with 10 more seeds: out[7] got 0"), std::string::npos)
      << *v.reason;
  EXPECT_FALSE(v.has_flag("speedup_over_10x"));
}

TEST_F(EvaluatorTest, KernelErrorIsACompileErrorAndTaskErrorThrows) {
  json plan{{"check", {{{"error", {{"code", "kernel_error"}, {"message", "forward takes 2 tensors, the task has 1"}}}},
                       {{"error", {{"code", "task_error"}, {"message", "task has no class Model"}, {"traceback", "tb"}}}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalResult result = run_check(*s, cache, request(), h200(), {}, nullptr);
  const protocol::Verdict& v = result.verdict;
  EXPECT_TRUE(result.kernel_mismatch);
  EXPECT_EQ(v.status, protocol::Status::CompileError);
  EXPECT_EQ(v.reason.value_or(""), "the kernel does not fit the task: forward takes 2 tensors, the task has 1");
  try {
    run_check(*s, cache, request(), h200(), {}, nullptr);
    FAIL() << "expected a TaskError";
  } catch (const TaskError& e) {
    EXPECT_STREQ(e.what(), "task has no class Model");
    EXPECT_EQ(e.traceback(), "tb");
  }
}

TEST_F(EvaluatorTest, TheCpuHasNoFloor) {
  json plan{{"check", {{{"result", correct_result(3.0)}}}}, {"time_reference", {{{"result", timing(6.0)}}}}};
  auto s = slot(plan);
  BaselineCache cache(dir_ / "baselines");
  EvalRequest r = request();
  r.device = protocol::Device::cpu();
  r.compile_baseline = false;
  protocol::Verdict v = run_check(*s, cache, r, DeviceContext{"CPU test", "1.13", std::nullopt}, {}, nullptr).verdict;
  EXPECT_EQ(v.status, protocol::Status::Correct);
  EXPECT_FALSE(v.floor);
  EXPECT_DOUBLE_EQ(v.speedup->eager.value_or(0), 2.0);
}

// The device-time method is part of a baseline's key: counters (ncu's metric, each kernel from a
// flushed cache) by default, counters flushed once per call under HONE_DEVICE_TIME=counters-call,
// the activity records' time under HONE_DEVICE_TIME=records; none stands in for another.
TEST_F(EvaluatorTest, BaselineKeyNamesTheDeviceTimeMethod) {
  BaselineCache cache(dir_ / "baselines");
  const BaselineKey key{"task", "NVIDIA H200", "2.11.0", "eager"};
  const char* before = std::getenv("HONE_DEVICE_TIME");
  const std::string saved = before ? before : "";
  ::unsetenv("HONE_DEVICE_TIME");
  const fs::path by_default = cache.path_for(key);
  ::setenv("HONE_DEVICE_TIME", "counters", 1);
  const fs::path counters = cache.path_for(key);
  ::setenv("HONE_DEVICE_TIME", "counters-call", 1);
  const fs::path per_call = cache.path_for(key);
  ::setenv("HONE_DEVICE_TIME", "records", 1);
  const fs::path records = cache.path_for(key);
  if (before) ::setenv("HONE_DEVICE_TIME", saved.c_str(), 1); else ::unsetenv("HONE_DEVICE_TIME");
  EXPECT_EQ(by_default, counters);
  EXPECT_NE(by_default, records);
  EXPECT_NE(by_default, per_call);
  EXPECT_NE(per_call, records);
}

// A flush probe's settings (HONE_FLUSH_MODE, HONE_FLUSH_L2_MULTIPLE) key a baseline of their own;
// unset, the key is the default's.
TEST_F(EvaluatorTest, BaselineKeyNamesADiagnosticFlush) {
  BaselineCache cache(dir_ / "baselines");
  const BaselineKey key{"task", "NVIDIA H200", "2.11.0", "eager"};
  for (const char* name : {"HONE_FLUSH_MODE", "HONE_FLUSH_L2_MULTIPLE"}) ASSERT_EQ(std::getenv(name), nullptr);
  const fs::path by_default = cache.path_for(key);
  ::setenv("HONE_FLUSH_MODE", "read2", 1);
  const fs::path read2 = cache.path_for(key);
  ::unsetenv("HONE_FLUSH_MODE");
  ::setenv("HONE_FLUSH_L2_MULTIPLE", "8", 1);
  const fs::path eight = cache.path_for(key);
  ::unsetenv("HONE_FLUSH_L2_MULTIPLE");
  EXPECT_NE(by_default, read2);
  EXPECT_NE(by_default, eight);
  EXPECT_NE(read2, eight);
  EXPECT_EQ(cache.path_for(key), by_default);
}

}  // namespace
}  // namespace hone::eval
