// lsp/job_scheduler.h: the language server's named, debounced, cancellable jobs on two lanes: a
// pool of CPU workers (the debounced builds of edited buffers, refresh requests) and a pool for
// hone's jobs (checks, profiles, optimizer runs), which queue for their device inside the engine
// (one worker per device, waiting cancellably), so a long optimize never holds up a check. Any
// thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace hone::lsp {

// Where a job runs: the CPU pool (builds of edited buffers), or the pool of hone's jobs (checks,
// profiles, optimizer runs; the engine serialises their device work).
enum class JobQueue { cpu, jobs };

// failed: `run` threw (a bug in the job; the scheduler keeps serving).
enum class JobOutcome { finished, cancelled, superseded, failed };

struct JobSpec {
  // Jobs share a name when they do the same work for the same thing ("build:file:///a.cu").
  // Scheduling a name that is still waiting replaces the waiting job (its `done` gets
  // `superseded`); a running job of that name is asked to stop when `supersede_running` is set.
  std::string name;
  JobQueue queue = JobQueue::cpu;
  std::chrono::milliseconds debounce{0};  // wait this long before starting; restarts on replace
  bool supersede_running = false;
  // The work, on a scheduler thread; it should return soon after `stop` is requested.
  std::function<void(std::stop_token stop)> run;
  // Called exactly once on a scheduler thread (or the caller's, when superseded or cancelled
  // while waiting): after `run` returned, or instead of it.
  std::function<void(JobOutcome)> done;
};

using JobId = std::uint64_t;

class JobScheduler {
 public:
  struct Options {
    int cpu_workers = 2;
    int job_workers = 4;
  };
  explicit JobScheduler(Options options);
  ~JobScheduler();  // cancels everything, waits for running jobs to return
  JobScheduler(const JobScheduler&) = delete;
  JobScheduler& operator=(const JobScheduler&) = delete;

  // Any thread. Returns the job's id (for cancel).
  JobId schedule(JobSpec spec);
  // Any thread. A waiting job is dropped (done(cancelled)); a running one is asked to stop.
  // Returns false when no such job is waiting or running.
  bool cancel(JobId id);
  bool cancel_named(const std::string& name);
  void cancel_all();
  // Any thread: runs `callback` once nothing is waiting or running (immediately if so now),
  // on the thread that finished the last job or on the caller's.
  void when_idle(std::function<void()> callback);
  // Any thread: blocks until idle. Not from a job.
  void wait_idle();
  // Jobs waiting or running now, for status displays and tests.
  std::size_t pending() const;

 private:
  struct Job;
  struct Lane;
  void worker_loop(Lane& lane);
  std::shared_ptr<Job> take_ready(Lane& lane, std::unique_lock<std::mutex>& lock);
  void finish(const std::shared_ptr<Job>& job, JobOutcome outcome, std::unique_lock<std::mutex>& lock);
  Lane& lane_for(JobQueue queue);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  JobId next_id_ = 1;
  std::map<JobId, std::shared_ptr<Job>> jobs_;  // waiting or running
  std::vector<std::unique_ptr<Lane>> lanes_;  // [0] the CPU pool, [1] hone's jobs
  std::vector<std::function<void()>> idle_callbacks_;
  std::vector<std::jthread> threads_;
};

}  // namespace hone::lsp
