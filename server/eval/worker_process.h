// eval/worker_process.h: one running eval worker (`python3 -m hone_worker`): JSON lines over its
// stdin/stdout, a ring of its last stderr lines, and per-request deadlines that kill its process
// group. Owned by a WorkerSlot (eval/worker_slot.h), which serialises requests; the reader runs on
// a private thread, and request() runs on the caller's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/verdict.h"
#include "support/subprocess.h"

namespace hone::eval {

// The caller's stop token fired during a worker request (or the worker's start).
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

// How a request ended.
struct WorkerReply {
  enum class Kind {
    Result,     // the worker answered with a result
    Error,      // the worker answered with a protocol error (task_error, kernel_error, ...)
    Died,       // the worker exited or was killed by a signal before answering
    TimedOut,   // no answer by the deadline: the worker's process group was killed
    Cancelled,  // the caller's stop token fired: the worker's process group was killed
  };
  Kind kind = Kind::Died;
  nlohmann::json result;       // Kind::Result
  std::string error_code;      // Kind::Error: "task_error", "kernel_error", "bad_request", "internal"
  std::string error_message;   // Kind::Error
  std::string traceback;       // Kind::Error, when the worker sent one
  protocol::Evidence evidence; // Died/TimedOut/Cancelled: signal or exit code, last stderr lines
  double seconds = 0;
};

// How the worker process is run, beyond its command.
struct WorkerProcessOptions {
  std::uint64_t address_space_bytes = 0;  // RLIMIT_AS; 0: none (CUDA needs a huge address space)
  // The command is a confinement wrapper that reports a child killed by signal N as exit code
  // 128+N (bwrap, hone-confine): read such codes back as the signal.
  bool exit_code_carries_signal = false;
};

class WorkerProcess {
 public:
  static constexpr std::size_t kStderrLines = 200;

  // Starts the process (argv[0] resolved on PATH) in its own process group. Throws
  // std::runtime_error naming the command when it cannot be started.
  WorkerProcess(const ProcessSpec& spec, const WorkerProcessOptions& options);
  ~WorkerProcess();  // closes stdin, waits briefly, then kills the process group
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends {"id", "method", "params"} and waits for the matching reply. Progress notifications for
  // it are passed to `on_progress` (on this thread). One request at a time: the caller serialises.
  WorkerReply request(std::string_view method, const nlohmann::json& params, std::chrono::milliseconds deadline,
                      std::stop_token stop, const std::function<void(const nlohmann::json&)>& on_progress);

  // Whether the process is still running (it may die at any moment after this returns).
  bool running() const;
  int pid() const { return pid_; }
  // The last stderr lines, oldest first (at most kStderrLines).
  std::vector<std::string> stderr_tail(std::size_t max_lines = kStderrLines) const;

 private:
  struct Io;
  void on_stdout_line(std::string line);
  void on_stderr_bytes(std::string_view bytes);
  void on_exit(int native_status);
  void wait_for_exit(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds limit);
  // Exit status and the stderr lines written since the current request was sent.
  protocol::Evidence exit_evidence(std::unique_lock<std::mutex>& lock);

  std::unique_ptr<Io> io_;
  std::string command_;  // for messages
  int pid_ = -1;
  std::int64_t next_id_ = 1;

  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  std::deque<nlohmann::json> inbox_;
  std::deque<std::string> stderr_lines_;
  std::uint64_t stderr_total_ = 0;         // lines ever received (the ring keeps the last ones)
  std::uint64_t request_first_line_ = 0;   // stderr_total_ when the current request was sent
  std::string stderr_partial_;
  bool exited_ = false;
  bool stdout_closed_ = false;
  bool stderr_closed_ = false;
  int native_status_ = 0;
  bool exit_code_carries_signal_ = false;
  std::optional<std::uint64_t> oom_kills_at_start_;  // /proc/vmstat's oom_kill when the process started
  std::thread reader_;
};

// "SIGSEGV" for 11; "signal 99" when the number has no name.
std::string signal_name(int sig);

}  // namespace hone::eval
