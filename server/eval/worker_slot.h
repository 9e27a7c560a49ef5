// eval/worker_slot.h: the one eval worker of one device. Starts it on first use (and checks its
// `hello`), serialises requests to it (a caller waiting for its turn can be cancelled), and
// replaces it after a crash, a deadline, a cancellation or a reply that asks for a restart (a
// sticky CUDA error). Used by the engine from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/worker_process.h"
#include "protocol/device.h"

namespace hone::eval {

// The worker could not be started or did not answer its hello: the message says what was run
// and what it printed.
class WorkerStartError : public std::runtime_error {
 public:
  WorkerStartError(const std::string& message, std::string detail)
      : std::runtime_error(message), detail_(std::move(detail)) {}
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
};

struct WorkerSlotOptions {
  protocol::Device device = protocol::Device::cpu();   // for messages
  std::function<ProcessSpec()> make_spec;               // the command to start (worker_process_spec)
  WorkerProcessOptions process;
  std::chrono::milliseconds start_timeout{std::chrono::seconds(120)};
};

using ProgressSink = std::function<void(const nlohmann::json&)>;

class WorkerSlot {
 public:
  explicit WorkerSlot(WorkerSlotOptions options);
  ~WorkerSlot();

  // Runs one request on this device's worker, starting the worker first when none is running
  // (reporting {"stage":"worker"} progress). Waits while another request of this slot runs.
  // Throws WorkerStartError when a worker cannot be started, Cancelled when `stop` fires first
  // (while waiting for the turn, too).
  WorkerReply call(const std::string& method, const nlohmann::json& params, std::chrono::milliseconds deadline,
                   std::stop_token stop, const ProgressSink& progress);

  // The worker's hello result (starting it when needed). Throws WorkerStartError and Cancelled.
  nlohmann::json hello(std::stop_token stop, const ProgressSink& progress);

  // The hello of a worker this slot started before, without starting one; nullopt if none yet.
  std::optional<nlohmann::json> known_hello() const;

  // How many workers this slot has started (1 after the first start; more after restarts).
  int starts() const;

 private:
  // The caller's turn at the worker, from a cancellable wait until it is released.
  class Turn;
  void ensure_started(std::stop_token stop, const ProgressSink& progress);

  WorkerSlotOptions options_;
  mutable std::mutex mutex_;           // guards the fields below
  std::condition_variable_any turn_free_;
  bool busy_ = false;                  // a caller has its turn: only it touches process_
  std::unique_ptr<WorkerProcess> process_;
  std::optional<nlohmann::json> hello_;
  int starts_ = 0;
};

}  // namespace hone::eval
