// tests/lsp/job_scheduler_test.cpp: the language server's JobScheduler: debounce and replacement
// by name, cancellation of waiting and running jobs, a job lane of one worker running one job at a
// time beside parallel CPU jobs, idle callbacks. Synchronises with latches and promises, never
// with sleeps.
#include <gtest/gtest.h>

#include <atomic>
#include <algorithm>
#include <future>
#include <latch>

#include "lsp/job_scheduler.h"

namespace hone::lsp {
namespace {

using namespace std::chrono_literals;

TEST(JobScheduler, ReplacingAWaitingJobSupersedesIt) {
  JobScheduler scheduler({2, 1});
  std::vector<std::string> log;
  std::mutex m;
  auto spec = [&](std::string tag) {
    JobSpec s;
    s.name = "build:a";
    s.debounce = 10s;  // long: only replacement or cancel can end it
    s.run = [&, tag](std::stop_token) { std::lock_guard l(m); log.push_back("run " + tag); };
    s.done = [&, tag](JobOutcome o) {
      std::lock_guard l(m);
      log.push_back(tag + (o == JobOutcome::superseded ? " superseded" : o == JobOutcome::cancelled ? " cancelled" : " finished"));
    };
    return s;
  };
  scheduler.schedule(spec("1"));
  scheduler.schedule(spec("2"));
  JobSpec last = spec("3");
  last.debounce = 0ms;
  scheduler.schedule(std::move(last));
  scheduler.wait_idle();
  // "2 superseded" is reported on this thread while job 3 may already run on a worker.
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0], "1 superseded");
  EXPECT_EQ(std::count(log.begin(), log.end(), "2 superseded"), 1);
  auto run = std::find(log.begin(), log.end(), "run 3");
  auto finished = std::find(log.begin(), log.end(), "3 finished");
  ASSERT_NE(run, log.end());
  ASSERT_NE(finished, log.end());
  EXPECT_LT(run, finished);
}

TEST(JobScheduler, CancelStopsARunningJobThroughItsToken) {
  JobScheduler scheduler({1, 1});
  std::promise<void> started;
  std::promise<JobOutcome> outcome;
  JobSpec s;
  s.queue = JobQueue::jobs;
  s.run = [&](std::stop_token stop) {
    started.set_value();
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock l(m);
    cv.wait(l, stop, [] { return false; });
  };
  s.done = [&](JobOutcome o) { outcome.set_value(o); };
  JobId id = scheduler.schedule(std::move(s));
  started.get_future().wait();
  EXPECT_TRUE(scheduler.cancel(id));
  EXPECT_EQ(outcome.get_future().get(), JobOutcome::cancelled);
  scheduler.wait_idle();
  EXPECT_FALSE(scheduler.cancel(id));
}

TEST(JobScheduler, AOneWorkerJobLaneRunsOneAtATimeWhileCpuJobsRunInParallel) {
  JobScheduler scheduler({2, 1});
  std::atomic<int> lane_running{0}, lane_peak{0};
  for (int i = 0; i < 4; ++i) {
    JobSpec s;
    s.queue = JobQueue::jobs;
    s.run = [&](std::stop_token) {
      int now = ++lane_running;
      lane_peak = std::max(lane_peak.load(), now);
      std::this_thread::yield();
      --lane_running;
    };
    scheduler.schedule(std::move(s));
  }
  // Two CPU jobs that can only finish together prove the pool runs them at once.
  std::latch both(2);
  for (int i = 0; i < 2; ++i) {
    JobSpec s;
    s.run = [&](std::stop_token) { both.arrive_and_wait(); };
    scheduler.schedule(std::move(s));
  }
  scheduler.wait_idle();
  EXPECT_EQ(lane_peak.load(), 1);
}

TEST(JobScheduler, IdleCallbackRunsAfterTheLastJobAndAtOnceWhenIdle) {
  JobScheduler scheduler({1, 1});
  std::promise<void> idle;
  std::atomic<bool> job_done{false};
  JobSpec s;
  s.debounce = 20ms;
  s.run = [&](std::stop_token) { job_done = true; };
  scheduler.schedule(std::move(s));
  scheduler.when_idle([&] {
    EXPECT_TRUE(job_done.load());
    idle.set_value();
  });
  idle.get_future().wait();
  bool immediate = false;
  scheduler.when_idle([&] { immediate = true; });
  EXPECT_TRUE(immediate);
  EXPECT_EQ(scheduler.pending(), 0u);
}

TEST(JobScheduler, DestructorCancelsWaitingJobs) {
  std::promise<JobOutcome> outcome;
  {
    JobScheduler scheduler({1, 1});
    JobSpec s;
    s.debounce = 1h;
    s.done = [&](JobOutcome o) { outcome.set_value(o); };
    scheduler.schedule(std::move(s));
  }
  EXPECT_EQ(outcome.get_future().get(), JobOutcome::cancelled);
}

}  // namespace
}  // namespace hone::lsp
