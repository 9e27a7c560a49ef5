// tests/cluster/pool_test.cpp: the GPU pool on the CPU, with fake GPUs ($HONE_FAKE_GPUS: CPU
// judges named as GPUs): checks spread over every member at once, a judge killed mid-check takes
// its GPU out of the pool and the check is re-queued on another and passes, `--verify-on all`
// gives a verdict per kind, baselines are cached per kind, and a pool gives the same verdicts as
// one judge. Real g++ builds, the real judge under /usr/bin/python3 with Debian's torch.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "protocol/verdict_text.h"
#include "support/subprocess.h"
#include "timing_withheld.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kEvalCases = HONE_EVAL_CASES;
const fs::path kCases = HONE_CLUSTER_CASES;

// $HONE_FAKE_GPUS for the life of a test.
class FakeGpus {
 public:
  explicit FakeGpus(const char* names) { ::setenv("HONE_FAKE_GPUS", names, 1); }
  ~FakeGpus() { ::unsetenv("HONE_FAKE_GPUS"); }
};

EngineOptions cpu_options(const std::string& gpus = "") {
  EngineOptions o;
  o.device = DeviceKind::Cpu;
  o.check_timeout = 90s;
  if (!gpus.empty()) o.gpus = *GpuSelection::parse(gpus);
  return o;
}

CheckRequest request(const fs::path& kernel, bool timing = false) {
  CheckRequest r;
  r.kernel.path = kernel;
  r.task = kEvalCases / "relu_small.py";
  r.timing = timing;
  return r;
}

std::string describe(const protocol::Verdict& v) { return verdict_headline(v) + "\n" + verdict_details(v); }

TEST(GpuSelection, ParsesAllCountsAndLists) {
  EXPECT_EQ(GpuSelection::parse("all")->mode, GpuSelection::Mode::All);
  EXPECT_EQ(GpuSelection::parse("3")->count, 3);
  EXPECT_EQ(GpuSelection::parse("0,2")->indices, (std::vector<int>{0, 2}));
  EXPECT_EQ(GpuSelection::parse("0,2")->text(), "0,2");
  EXPECT_FALSE(GpuSelection::parse("0"));
  EXPECT_FALSE(GpuSelection::parse("two"));
  EXPECT_FALSE(GpuSelection::parse("1,"));
}

TEST(GpuPool, OneJudgePerFakeGpuAndTheSelectionPicksThem) {
  FakeGpus fakes("Fake A,Fake A,Fake B");
  Engine all(cpu_options("all"));
  EXPECT_EQ(all.pool_width(DeviceKind::Cpu), 3);
  EXPECT_EQ(all.gpu_kinds(DeviceKind::Cpu), (std::vector<std::string>{"Fake A", "Fake B"}));
  Engine two(cpu_options("0,2"));
  std::vector<PoolMemberInfo> members = two.pool_state(DeviceKind::Cpu);
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].index, 0);
  EXPECT_EQ(members[1].index, 2);
  EXPECT_EQ(members[1].kind, "Fake B");
  Engine too_many(cpu_options("4"));
  EXPECT_THROW(too_many.pool_width(DeviceKind::Cpu), EngineError);
}

TEST(GpuPool, ChecksSpreadOverEveryGpuAtOnce) {
  FakeGpus fakes("3");
  Engine engine(cpu_options("all"));
  std::vector<CheckRequest> requests(3, request(kCases / "slow_relu.cpp"));
  const auto t0 = std::chrono::steady_clock::now();
  Engine::ManyResult r = engine.check_many(requests);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::set<int> indices;
  std::set<std::string> uuids;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_FALSE(r.errors[i]) << r.errors[i]->what() << "\n" << r.errors[i]->detail();
    ASSERT_TRUE(r.verdicts[i]);
    const protocol::Verdict& v = *r.verdicts[i];
    EXPECT_EQ(v.status, protocol::Status::Correct) << describe(v);
    ASSERT_TRUE(v.device.index);
    indices.insert(*v.device.index);
    ASSERT_TRUE(v.device.uuid);
    uuids.insert(*v.device.uuid);
    EXPECT_EQ(v.device.name, "Fake GPU");
  }
  EXPECT_EQ(indices.size(), 3u) << "each check ran on its own judge";
  EXPECT_EQ(uuids, (std::set<std::string>{"FAKE-0", "FAKE-1", "FAKE-2"}));
  for (const auto& m : engine.pool_state(DeviceKind::Cpu)) EXPECT_EQ(m.checks, 1) << m.device << " " << *m.index;
  std::cout << "3 checks of a 2 s kernel over 3 fake GPUs: " << wall << " s\n";
}

TEST(GpuPool, AJudgeKilledMidCheckLeavesThePoolAndItsCheckPassesElsewhere) {
  FakeGpus fakes("2");
  Engine engine(cpu_options("all"));
  std::optional<protocol::Verdict> verdict;
  std::jthread check([&] { verdict = engine.check(request(kCases / "slow_relu.cpp")); });
  // Wait for the check to hold a member whose judge has started, then kill that judge.
  std::optional<PoolMemberInfo> victim;
  for (int i = 0; i < 600 && !victim; ++i) {
    for (const auto& m : engine.pool_state(DeviceKind::Cpu))
      if (m.busy && m.judge_pid) victim = m;
    if (!victim) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(victim) << "no member took the check";
  std::this_thread::sleep_for(1500ms);  // into the check (the kernel's first call sleeps 2 s)
  ASSERT_EQ(::kill(*victim->judge_pid, SIGKILL), 0);
  check.join();
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->status, protocol::Status::Correct) << describe(*verdict);
  EXPECT_TRUE(verdict->has_flag("requeued")) << describe(*verdict);
  EXPECT_NE(verdict->device.index, victim->index) << "it finished on the other GPU";
  std::vector<PoolMemberInfo> members = engine.pool_state(DeviceKind::Cpu);
  const PoolMemberInfo& gone = members[static_cast<std::size_t>(*victim->index)];
  EXPECT_TRUE(gone.retired);
  EXPECT_NE(gone.why.find("judge died"), std::string::npos) << gone.why;
  EXPECT_EQ(engine.pool_width(DeviceKind::Cpu), 1);
  // The last member is never retired: the pool keeps serving.
  protocol::Verdict next = engine.check(request(kEvalCases / "good_relu.cpp"));
  EXPECT_EQ(next.status, protocol::Status::Correct) << describe(next);
}

TEST(GpuPool, VerifyOnEveryKindGivesAVerdictPerKindWithItsOwnBaseline) {
  FakeGpus fakes("Fake A,Fake B");
  Engine engine(cpu_options("all"));
  std::vector<CheckRequest> requests;
  for (const std::string& kind : engine.gpu_kinds(DeviceKind::Cpu)) {
    CheckRequest r = request(kEvalCases / "good_relu.cpp", /*timing=*/true);
    r.compile_baseline = false;
    r.gpu_kind = kind;
    requests.push_back(r);
  }
  // Both checks at once on a 2-core machine: a time the judge withheld is checked again (timing_withheld.h).
  auto withheld = [](const Engine::ManyResult& m) {
    for (const auto& v : m.verdicts)
      if (auto why = v ? test::withheld_reason(*v) : ""; !why.empty()) return why;
    return std::string();
  };
  Engine::ManyResult r = test::until_timed([&] { return engine.check_many(requests); }, withheld);
  ASSERT_EQ(r.verdicts.size(), 2u);
  if (auto why = withheld(r); !why.empty()) GTEST_SKIP() << "time withheld in every check: " << why;
  std::set<std::string> kinds;
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(r.verdicts[i]) << (r.errors[i] ? r.errors[i]->what() : "");
    EXPECT_EQ(r.verdicts[i]->status, protocol::Status::Correct) << describe(*r.verdicts[i]);
    EXPECT_EQ(r.verdicts[i]->device.name, *requests[i].gpu_kind);
    ASSERT_TRUE(r.verdicts[i]->baselines && r.verdicts[i]->baselines->eager) << describe(*r.verdicts[i]);
    kinds.insert(r.verdicts[i]->device.name);
  }
  EXPECT_EQ(kinds.size(), 2u);
}

TEST(GpuPool, SameVerdictsAsOneJudge) {
  const std::vector<fs::path> kernels = {kEvalCases / "good_relu.cpp", kEvalCases / "wrong_values.cpp",
                                         kEvalCases / "segfault.cpp", kEvalCases / "wrong_signature.cpp"};
  std::vector<CheckRequest> requests;
  for (const auto& k : kernels) requests.push_back(request(k));
  std::vector<protocol::Status> one;
  {
    Engine engine(cpu_options());
    EXPECT_EQ(engine.pool_width(DeviceKind::Cpu), 1);
    for (const auto& r : requests) one.push_back(engine.check(r).status);
  }
  FakeGpus fakes("3");
  Engine pool(cpu_options("all"));
  Engine::ManyResult many = pool.check_many(requests);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    ASSERT_TRUE(many.verdicts[i]) << kernels[i];
    EXPECT_EQ(many.verdicts[i]->status, one[i]) << kernels[i] << "\n" << describe(*many.verdicts[i]);
  }
  EXPECT_EQ(one[0], protocol::Status::Correct);
  EXPECT_EQ(one[1], protocol::Status::Incorrect);
}

// `hone bench --gpus all` shards its tasks over the pool and keeps each verdict in --out as it
// arrives; `--resume` keeps those and checks nothing again.
TEST(GpuPoolCli, BenchShardsOverTheGpusAndResumes) {
  const fs::path dir = fs::temp_directory_path() / ("hone-pool-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::all, fs::perm_options::add);
  for (const char* name : {"a", "b", "c"}) {
    fs::copy_file(kEvalCases / "relu_small.py", dir / (std::string(name) + ".py"));
    fs::copy_file(kCases / "slow_relu.cpp", dir / (std::string(name) + ".cpp"));
  }
  const fs::path out = dir / "verdicts.jsonl";
  auto bench = [&](std::vector<std::string> extra) {
    ProcessSpec spec;
    spec.argv = {HONE_CLI, "bench", dir.string(), "--device", "cpu", "--baselines", "none", "--gpus", "all", "--json",
                 "--out", out.string()};
    spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
    spec.env = current_environment();
    (*spec.env)["HONE_FAKE_GPUS"] = "3";
    spec.timeout = 300s;
    return run_process(spec);
  };
  ProcessResult first = bench({});
  ASSERT_EQ(first.exit_code, 0) << first.describe() << first.err << first.out;
  std::set<int> indices;
  std::ifstream in(out);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    nlohmann::json v = nlohmann::json::parse(line);
    EXPECT_EQ(v["status"], "correct") << line;
    indices.insert(v["device"]["index"].get<int>());
    ++lines;
  }
  EXPECT_EQ(lines, 3);
  EXPECT_EQ(indices.size(), 3u) << "the three tasks ran on three judges";
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult again = bench({"--resume"});
  const double resumed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(again.exit_code, 0) << again.describe() << again.err << again.out;
  EXPECT_NE(again.err.find("3 verdict(s) kept"), std::string::npos) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["tasks"].size(), 3u);
  EXPECT_LT(resumed_s, 2.0) << "nothing was checked again";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hone
