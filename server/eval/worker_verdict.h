// eval/worker_verdict.h: turns the worker's replies into verdict fields: a check result's status,
// correctness, timing, flags and evidence; a crash, deadline or protocol error into the matching
// status with its evidence and a reason a user can act on. Pure functions, any thread.
#pragma once

#include <stdexcept>
#include <string>

#include "eval/worker_process.h"
#include "protocol/verdict.h"

namespace hone::eval {

// The task cannot be loaded or run (no Model, get_inputs raising, ...): bad input, not a verdict.
class TaskError : public std::runtime_error {
 public:
  TaskError(const std::string& message, std::string traceback)
      : std::runtime_error(message), traceback_(std::move(traceback)) {}
  const std::string& traceback() const { return traceback_; }

 private:
  std::string traceback_;
};

// The worker broke its protocol or reported an internal error (a bug in hone).
class WorkerFailure : public std::runtime_error {
 public:
  WorkerFailure(const std::string& message, std::string detail) : std::runtime_error(message), detail_(std::move(detail)) {}
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
};

// The worker refused a request it cannot serve: a library that is not a hone kernel or does not
// fit the task, or a request this worker cannot run (no CUDA device, torch.compile on torch < 2).
class RequestRefused : public std::runtime_error {
 public:
  RequestRefused(const std::string& message, std::string traceback)
      : std::runtime_error(message), traceback_(std::move(traceback)) {}
  const std::string& traceback() const { return traceback_; }

 private:
  std::string traceback_;
};

// What an error reply's code (protocol/WORKER.md) means; read here only.
enum class WorkerErrorKind {
  Task,         // task_error: the reference cannot be loaded or run
  Kernel,       // kernel_error: the library cannot be loaded or does not fit the task
  Unsupported,  // unsupported: this worker cannot run the request
  Failure,      // bad_request, internal, or a code hone does not know: a bug
};
WorkerErrorKind worker_error_kind(const WorkerReply& reply);

// Throws what an error reply means: Task -> TaskError, Kernel and Unsupported -> RequestRefused,
// Failure -> WorkerFailure (naming the code).
[[noreturn]] void throw_worker_error(const WorkerReply& reply);

// Applies a `check` reply to the verdict: Result -> the worker's fields; kernel_error -> a
// compile_error (the library does not load or does not fit the task's signature); Died ->
// runtime_error; TimedOut -> timeout. Throws what throw_worker_error throws for the other errors,
// WorkerFailure for a malformed result, and Cancelled. Returns true when the reply was a kernel_error.
bool apply_check_reply(const WorkerReply& reply, double deadline_s, protocol::Verdict& verdict);

// The worker's signature object (task_info's or a check result's) as a Signature.
protocol::Signature signature_from_worker(const nlohmann::json& j);

// "killed by SIGSEGV", "exited with code 3", or "" when the evidence has neither.
std::string describe_exit(const protocol::Evidence& evidence);

}  // namespace hone::eval
