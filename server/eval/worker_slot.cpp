// eval/worker_slot.cpp: starting, serialising and replacing one device's eval worker.
#include "eval/worker_slot.h"

namespace hone::eval {
namespace {

using nlohmann::json;

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

std::string command_text(const ProcessSpec& spec) {
  std::string text;
  for (const auto& a : spec.argv) text += (text.empty() ? "" : " ") + a;
  return text;
}

}  // namespace

class WorkerSlot::Turn {
 public:
  Turn(WorkerSlot& slot, std::stop_token stop) : slot_(slot) {
    std::unique_lock lock(slot_.mutex_);
    if (!slot_.turn_free_.wait(lock, stop, [this] { return !slot_.busy_; })) throw Cancelled();
    slot_.busy_ = true;
  }
  ~Turn() {
    {
      std::lock_guard lock(slot_.mutex_);
      slot_.busy_ = false;
    }
    slot_.turn_free_.notify_one();
  }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

 private:
  WorkerSlot& slot_;
};

WorkerSlot::WorkerSlot(WorkerSlotOptions options) : options_(std::move(options)) {}

WorkerSlot::~WorkerSlot() {
  Turn turn(*this, {});
  process_.reset();
}

int WorkerSlot::starts() const {
  std::lock_guard lock(mutex_);
  return starts_;
}

void WorkerSlot::ensure_started(std::stop_token stop, const ProgressSink& progress) {
  if (process_ && process_->running()) return;
  process_.reset();
  ProcessSpec spec;
  try {
    spec = options_.make_spec();
  } catch (const std::exception& e) {
    throw WorkerStartError(std::string("the eval worker's command could not be prepared: ") + e.what(), "");
  }
  const std::string command = command_text(spec);
  if (progress) progress(json{{"stage", "worker"}, {"message", "starting the eval worker for " + options_.device.name()}});
  try {
    process_ = std::make_unique<WorkerProcess>(spec, options_.process);
  } catch (const std::exception& e) {
    throw WorkerStartError(e.what(), command);
  }
  {
    std::lock_guard lock(mutex_);
    ++starts_;
  }
  WorkerReply reply = process_->request("hello", json::object(), options_.start_timeout, stop, nullptr);
  if (reply.kind == WorkerReply::Kind::Result && reply.result.is_object()) {
    std::lock_guard lock(mutex_);
    hello_ = reply.result;
    return;
  }
  if (reply.kind == WorkerReply::Kind::Cancelled) {
    process_.reset();
    throw Cancelled();
  }
  std::string why;
  switch (reply.kind) {
    case WorkerReply::Kind::Error: why = reply.error_code + ": " + reply.error_message; break;
    case WorkerReply::Kind::TimedOut:
      why = "no answer within " + std::to_string(options_.start_timeout.count() / 1000) + " s";
      break;
    case WorkerReply::Kind::Cancelled: why = "cancelled"; break;
    case WorkerReply::Kind::Died:
      why = reply.evidence.signal ? "killed by " + *reply.evidence.signal
                                  : "exited with code " + std::to_string(reply.evidence.exit_code.value_or(-1));
      break;
    case WorkerReply::Kind::Result: why = "its hello was not an object"; break;
  }
  std::vector<std::string> tail = reply.evidence.stderr_tail.empty() ? process_->stderr_tail(40) : reply.evidence.stderr_tail;
  process_.reset();
  throw WorkerStartError("the eval worker did not start (" + command + "): " + why,
                         join_lines(tail) + (reply.traceback.empty() ? "" : reply.traceback));
}

WorkerReply WorkerSlot::call(const std::string& method, const json& params, std::chrono::milliseconds deadline,
                             std::stop_token stop, const ProgressSink& progress) {
  Turn turn(*this, stop);
  ensure_started(stop, progress);
  WorkerReply reply = process_->request(method, params, deadline, stop, progress);
  bool restart = reply.kind == WorkerReply::Kind::Died || reply.kind == WorkerReply::Kind::TimedOut ||
                 reply.kind == WorkerReply::Kind::Cancelled;
  if (reply.kind == WorkerReply::Kind::Result && reply.result.is_object() &&
      reply.result.value("restart_required", false)) {
    restart = true;
  }
  // The next call starts a fresh worker (the old one exits by itself or is killed here).
  if (restart) process_.reset();
  return reply;
}

std::optional<json> WorkerSlot::known_hello() const {
  std::lock_guard lock(mutex_);
  return hello_;
}

json WorkerSlot::hello(std::stop_token stop, const ProgressSink& progress) {
  if (auto known = known_hello()) return *known;
  Turn turn(*this, stop);
  if (auto known = known_hello()) return *known;
  ensure_started(stop, progress);
  return *known_hello();
}

}  // namespace hone::eval
