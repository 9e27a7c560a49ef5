// lsp/job_scheduler.cpp: two lanes of waiting jobs with debounce deadlines, each served by its own
// worker threads; cancellation through std::stop_source.
#include "lsp/job_scheduler.h"

#include <algorithm>

namespace hone::lsp {

struct JobScheduler::Job {
  JobId id = 0;
  JobSpec spec;
  std::chrono::steady_clock::time_point ready_at;
  std::stop_source stop;
  bool running = false;
};

struct JobScheduler::Lane {
  std::deque<std::shared_ptr<Job>> waiting;
};

JobScheduler::JobScheduler(Options options) {
  const int workers[] = {std::max(1, options.cpu_workers), std::max(1, options.job_workers)};
  for (int count : workers) {
    Lane* lane = lanes_.emplace_back(std::make_unique<Lane>()).get();
    for (int i = 0; i < count; ++i) threads_.emplace_back([this, lane] { worker_loop(*lane); });
  }
}

JobScheduler::~JobScheduler() {
  std::vector<std::shared_ptr<Job>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& lane : lanes_) {
      for (auto& job : lane->waiting) dropped.push_back(job);
      lane->waiting.clear();
    }
    for (auto& [id, job] : jobs_) job->stop.request_stop();
  }
  changed_.notify_all();
  for (auto& job : dropped) {
    if (job->spec.done) job->spec.done(JobOutcome::cancelled);
  }
  for (auto& thread : threads_) thread.join();
}

JobScheduler::Lane& JobScheduler::lane_for(JobQueue queue) { return *lanes_[queue == JobQueue::cpu ? 0 : 1]; }

JobId JobScheduler::schedule(JobSpec spec) {
  std::vector<std::shared_ptr<Job>> superseded;
  JobId id = 0;
  {
    std::lock_guard lock(mutex_);
    auto job = std::make_shared<Job>();
    id = job->id = next_id_++;
    job->ready_at = std::chrono::steady_clock::now() + spec.debounce;
    if (!spec.name.empty()) {
      for (auto& lane : lanes_) {
        auto& waiting = lane->waiting;
        for (auto it = waiting.begin(); it != waiting.end();) {
          if ((*it)->spec.name == spec.name) {
            superseded.push_back(*it);
            it = waiting.erase(it);
          } else {
            ++it;
          }
        }
      }
      if (spec.supersede_running) {
        for (auto& [other_id, other] : jobs_) {
          if (other->running && other->spec.name == spec.name) other->stop.request_stop();
        }
      }
    }
    job->spec = std::move(spec);
    lane_for(job->spec.queue).waiting.push_back(job);
    jobs_[id] = job;
  }
  changed_.notify_all();
  for (auto& job : superseded) {
    if (job->spec.done) job->spec.done(JobOutcome::superseded);
    std::unique_lock lock(mutex_);
    finish(job, JobOutcome::superseded, lock);
  }
  return id;
}

bool JobScheduler::cancel(JobId id) {
  std::shared_ptr<Job> dropped;
  {
    std::lock_guard lock(mutex_);
    auto found = jobs_.find(id);
    if (found == jobs_.end()) return false;
    auto job = found->second;
    if (job->running) {
      job->stop.request_stop();
      return true;
    }
    auto& waiting = lane_for(job->spec.queue).waiting;
    waiting.erase(std::remove(waiting.begin(), waiting.end(), job), waiting.end());
    dropped = job;
  }
  if (dropped->spec.done) dropped->spec.done(JobOutcome::cancelled);
  std::unique_lock lock(mutex_);
  finish(dropped, JobOutcome::cancelled, lock);
  return true;
}

bool JobScheduler::cancel_named(const std::string& name) {
  std::vector<JobId> ids;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) {
      if (job->spec.name == name) ids.push_back(id);
    }
  }
  bool any = false;
  for (JobId id : ids) any = cancel(id) || any;
  return any;
}

void JobScheduler::cancel_all() {
  std::vector<JobId> ids;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) ids.push_back(id);
  }
  for (JobId id : ids) cancel(id);
}

void JobScheduler::when_idle(std::function<void()> callback) {
  {
    std::lock_guard lock(mutex_);
    if (!jobs_.empty()) {
      idle_callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback();
}

void JobScheduler::wait_idle() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return jobs_.empty(); });
}

std::size_t JobScheduler::pending() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

std::shared_ptr<JobScheduler::Job> JobScheduler::take_ready(Lane& lane,
                                                            std::unique_lock<std::mutex>& lock) {
  while (!stopping_) {
    auto now = std::chrono::steady_clock::now();
    auto earliest = lane.waiting.end();
    for (auto it = lane.waiting.begin(); it != lane.waiting.end(); ++it) {
      if (earliest == lane.waiting.end() || (*it)->ready_at < (*earliest)->ready_at) earliest = it;
    }
    if (earliest == lane.waiting.end()) {
      changed_.wait(lock);
      continue;
    }
    if ((*earliest)->ready_at <= now) {
      auto job = *earliest;
      lane.waiting.erase(earliest);
      job->running = true;
      return job;
    }
    changed_.wait_until(lock, (*earliest)->ready_at);
  }
  return nullptr;
}

void JobScheduler::worker_loop(Lane& lane) {
  std::unique_lock lock(mutex_);
  while (auto job = take_ready(lane, lock)) {
    lock.unlock();
    std::stop_token token = job->stop.get_token();
    bool threw = false;
    try {
      if (!token.stop_requested() && job->spec.run) job->spec.run(token);
    } catch (...) {
      threw = true;
    }
    JobOutcome outcome = threw ? JobOutcome::failed : token.stop_requested() ? JobOutcome::cancelled : JobOutcome::finished;
    if (job->spec.done) job->spec.done(outcome);
    lock.lock();
    finish(job, outcome, lock);
  }
}

// Called with the lock held; drops the job and, when nothing is left, runs the idle callbacks
// with the lock released (it is held again on return).
void JobScheduler::finish(const std::shared_ptr<Job>& job, JobOutcome,
                          std::unique_lock<std::mutex>& lock) {
  jobs_.erase(job->id);
  if (!jobs_.empty()) return;
  auto callbacks = std::move(idle_callbacks_);
  idle_callbacks_.clear();
  changed_.notify_all();
  lock.unlock();
  for (auto& callback : callbacks) callback();
  lock.lock();
}

}  // namespace hone::lsp
