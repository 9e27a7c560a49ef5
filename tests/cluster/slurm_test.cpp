// tests/cluster/slurm_test.cpp: the Slurm executor against a real Slurm (scripts/slurm-local.sh's
// one-node cluster; skipped, visibly, when no controller answers): batches of checks submitted
// with sbatch and run by `hone run-batch` on the node give the verdicts a local run gives, each
// naming its job; a job cancelled mid-run (scancel) has its unfinished checks re-queued in a new
// job, and past the retry bound the verdict says what happened to the jobs.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "cluster/slurm_executor.h"
#include "engine/engine.h"
#include "protocol/verdict_text.h"
#include "support/subprocess.h"

namespace hone {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kEvalCases = HONE_EVAL_CASES;
const fs::path kCases = HONE_CLUSTER_CASES;

std::string describe(const protocol::Verdict& v) { return verdict_headline(v) + "\n" + verdict_details(v); }

class Slurm : public ::testing::Test {
 protected:
  void SetUp() override {
    // scripts/slurm-local.sh's cluster, when the shell did not say which.
    if (!std::getenv("SLURM_CONF") && fs::exists("/tmp/hone-slurm/slurm.conf"))
      ::setenv("SLURM_CONF", "/tmp/hone-slurm/slurm.conf", 1);
    static const std::optional<std::string> unavailable = cluster::slurm_unavailable();  // asked once
    if (const auto& why = unavailable)
      GTEST_SKIP() << "no Slurm here (" << *why << "): run scripts/slurm-local.sh and export SLURM_CONF";
    workspace_ = fs::temp_directory_path() / ("hone-slurm-test-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(workspace_);
    fs::create_directories(workspace_);
  }
  void TearDown() override {
    if (!workspace_.empty()) fs::remove_all(workspace_);
  }

  EngineOptions options(Executor executor, int batch = 2, int attempts = 3) const {
    EngineOptions o;
    o.workspace = workspace_;
    o.device = DeviceKind::Cpu;
    o.check_timeout = 90s;
    o.executor = executor;
    o.slurm.batch_size = batch;
    o.slurm.max_attempts = attempts;
    o.slurm.time_limit = "00:10:00";
    o.slurm.hone_binary = HONE_CLI;
    return o;
  }

  static CheckRequest request(const fs::path& kernel) {
    CheckRequest r;
    r.kernel.path = kernel;
    r.task = kEvalCases / "relu_small.py";
    r.timing = false;
    return r;
  }

  // Runs the checks on Slurm; cancels the first job submitted once it has run `after`, when set.
  Engine::ManyResult run_cancelling(Engine& engine, const std::vector<CheckRequest>& requests,
                                    std::optional<std::chrono::milliseconds> after, std::string& cancelled) {
    std::mutex m;
    std::vector<std::string> jobs;
    CallContext ctx;
    ctx.progress = [&](const Progress& p) {
      if (p.stage != "slurm") return;
      std::lock_guard lock(m);
      jobs.push_back(p.message.substr(p.message.rfind(' ') + 1));
    };
    std::jthread canceller;
    if (after) {
      canceller = std::jthread([&, after](std::stop_token stop) {
        std::string first;
        while (!stop.stop_requested() && first.empty()) {
          {
            std::lock_guard lock(m);
            if (!jobs.empty()) first = jobs.front();
          }
          std::this_thread::sleep_for(50ms);
        }
        while (!stop.stop_requested() && cluster::job_state(first).state != "RUNNING") std::this_thread::sleep_for(100ms);
        std::this_thread::sleep_for(*after);
        ProcessSpec spec;
        spec.argv = {"scancel", first};
        ProcessResult r = run_process(spec);
        EXPECT_TRUE(r.ok()) << r.describe() << r.err;
        cancelled = first;
      });
    }
    Engine::ManyResult result = engine.check_many(requests, ctx);
    if (canceller.joinable()) canceller.join();
    return result;
  }

  fs::path workspace_;
};

TEST_F(Slurm, BatchesGiveTheVerdictsOfALocalRunEachNamingItsJob) {
  std::vector<CheckRequest> requests = {request(kEvalCases / "good_relu.cpp"), request(kEvalCases / "wrong_values.cpp"),
                                        request(kEvalCases / "segfault.cpp")};
  Engine local(options(Executor::Local));
  Engine slurm(options(Executor::Slurm, /*batch=*/2));
  std::string none;
  const auto t0 = std::chrono::steady_clock::now();
  Engine::ManyResult remote = run_cancelling(slurm, requests, std::nullopt, none);
  const double slurm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::set<std::string> jobs;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(remote.verdicts[i]) << (remote.errors[i] ? remote.errors[i]->what() : "no verdict");
    protocol::Verdict here = local.check(requests[i]);
    const protocol::Verdict& there = *remote.verdicts[i];
    EXPECT_EQ(there.status, here.status) << describe(there) << "\nlocal:\n" << describe(here);
    EXPECT_EQ(there.kernel.hash, here.kernel.hash);
    ASSERT_TRUE(there.executor) << describe(there);
    EXPECT_EQ(there.executor->kind, "slurm");
    ASSERT_TRUE(there.executor->job_id);
    jobs.insert(*there.executor->job_id);
    EXPECT_EQ(there.executor->attempts, 1);
    EXPECT_FALSE(here.executor);
  }
  EXPECT_EQ(jobs.size(), 2u) << "3 checks in batches of 2";
  std::cout << "3 checks as 2 Slurm jobs: " << slurm_s << " s\n";
}

TEST_F(Slurm, ACancelledJobsChecksAreRequeuedAndPass) {
  std::vector<CheckRequest> requests(4, request(kCases / "slow_relu.cpp"));
  Engine slurm(options(Executor::Slurm, /*batch=*/2));
  std::string cancelled;
  Engine::ManyResult r = run_cancelling(slurm, requests, 1000ms, cancelled);
  ASSERT_FALSE(cancelled.empty());
  int requeued = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(r.verdicts[i]) << (r.errors[i] ? r.errors[i]->what() : "no verdict");
    const protocol::Verdict& v = *r.verdicts[i];
    EXPECT_EQ(v.status, protocol::Status::Correct) << describe(v);
    ASSERT_TRUE(v.executor && v.executor->job_id);
    if (v.executor->attempts > 1) {
      ++requeued;
      EXPECT_NE(*v.executor->job_id, cancelled);
      EXPECT_TRUE(v.has_flag("requeued")) << describe(v);
    }
  }
  EXPECT_GE(requeued, 1) << "job " << cancelled << " was cancelled before its checks finished";
}

TEST_F(Slurm, PastTheRetryBoundTheVerdictSaysWhatHappened) {
  Engine slurm(options(Executor::Slurm, /*batch=*/1, /*attempts=*/1));
  std::string cancelled;
  Engine::ManyResult r = run_cancelling(slurm, {request(kCases / "slow_relu.cpp")}, 500ms, cancelled);
  ASSERT_TRUE(r.verdicts[0]) << (r.errors[0] ? r.errors[0]->what() : "no verdict");
  const protocol::Verdict& v = *r.verdicts[0];
  EXPECT_EQ(v.status, protocol::Status::RuntimeError) << describe(v);
  ASSERT_TRUE(v.reason);
  EXPECT_NE(v.reason->find("CANCELLED"), std::string::npos) << *v.reason;
  EXPECT_NE(v.reason->find("job " + cancelled), std::string::npos) << *v.reason;
  ASSERT_TRUE(v.executor && v.executor->job_id);
  EXPECT_EQ(*v.executor->job_id, cancelled);
}

}  // namespace
}  // namespace hone
