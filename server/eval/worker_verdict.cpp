// eval/worker_verdict.cpp: from worker replies to verdict fields.
#include "eval/worker_verdict.h"

#include "support/oom_kills.h"

#include <cstdio>

namespace hone::eval {
namespace {

using nlohmann::json;

// The last stderr line that is not blank: usually the worker's "calling candidate forward
// (trial 2, seed 7)" or the candidate's own last words.
std::string last_line(const protocol::Evidence& evidence) {
  for (auto it = evidence.stderr_tail.rbegin(); it != evidence.stderr_tail.rend(); ++it)
    if (it->find_first_not_of(" \t\r") != std::string::npos) return *it;
  return {};
}

template <class T>
void take(const json& j, const char* key, std::optional<T>& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) out = it->get<T>();
}

void apply_result(const json& r, protocol::Verdict& v) {
  if (!r.is_object()) throw WorkerFailure("the eval worker's check result is not an object", r.dump());
  std::string status = r.value("status", std::string());
  auto parsed = protocol::parse_status(status);
  if (!parsed) throw WorkerFailure("the eval worker sent an unknown status '" + status + "'", r.dump());
  v.status = *parsed;
  v.reason = std::nullopt;
  if (auto it = r.find("reason"); it != r.end() && it->is_string() && !it->get<std::string>().empty())
    v.reason = it->get<std::string>();
  if (auto it = r.find("signature"); it != r.end() && it->is_object()) v.signature = signature_from_worker(*it);
  take(r, "correctness", v.correctness);
  take(r, "timing", v.timing);
  take(r, "kernel_time", v.kernel_time);
  take(r, "answer", v.answer);
  if (auto it = r.find("flags"); it != r.end() && it->is_array())
    for (const auto& f : *it) v.flags.push_back(f.get<protocol::Flag>());
  take(r, "evidence", v.evidence);
  if (auto it = r.find("seconds"); it != r.end()) {
    if (it->is_number()) v.seconds["worker"] = it->get<double>();
    if (it->is_object())
      for (const auto& [stage, s] : it->items())
        if (s.is_number()) v.seconds[stage] = s.get<double>();
  }
}

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s >= 10 ? "%.0f s" : "%.1f s", s);
  return buf;
}

}  // namespace

WorkerErrorKind worker_error_kind(const WorkerReply& reply) {
  if (reply.error_code == "task_error") return WorkerErrorKind::Task;
  if (reply.error_code == "kernel_error") return WorkerErrorKind::Kernel;
  if (reply.error_code == "unsupported") return WorkerErrorKind::Unsupported;
  return WorkerErrorKind::Failure;
}

void throw_worker_error(const WorkerReply& reply) {
  switch (worker_error_kind(reply)) {
    case WorkerErrorKind::Task: throw TaskError(reply.error_message, reply.traceback);
    case WorkerErrorKind::Kernel:
    case WorkerErrorKind::Unsupported: throw RequestRefused(reply.error_message, reply.traceback);
    case WorkerErrorKind::Failure: break;
  }
  throw WorkerFailure("the eval worker reported " + reply.error_code + ": " + reply.error_message, reply.traceback);
}

std::string describe_exit(const protocol::Evidence& evidence) {
  if (evidence.signal) return "killed by " + *evidence.signal;
  if (evidence.exit_code) return "exited with code " + std::to_string(*evidence.exit_code);
  return {};
}

protocol::Signature signature_from_worker(const json& j) {
  try {
    return j.get<protocol::Signature>();
  } catch (const std::exception& e) {
    throw WorkerFailure(std::string("the eval worker sent a malformed signature: ") + e.what(), j.dump());
  }
}

bool apply_check_reply(const WorkerReply& reply, double deadline_s, protocol::Verdict& v) {
  switch (reply.kind) {
    case WorkerReply::Kind::Result:
      try {
        apply_result(reply.result, v);
      } catch (const WorkerFailure&) {
        throw;
      } catch (const std::exception& e) {
        throw WorkerFailure(std::string("the eval worker sent a malformed check result: ") + e.what(), reply.result.dump());
      }
      if (v.status != protocol::Status::Correct && !v.reason) v.reason = std::string(protocol::to_string(v.status));
      return false;
    case WorkerReply::Kind::Error:
      if (worker_error_kind(reply) == WorkerErrorKind::Kernel) {
        v.status = protocol::Status::CompileError;
        v.reason = "the kernel does not fit the task: " + reply.error_message;
        if (!reply.traceback.empty()) {
          v.evidence = v.evidence.value_or(protocol::Evidence{});
          v.evidence->traceback = reply.traceback;
        }
        return true;
      }
      throw_worker_error(reply);
    case WorkerReply::Kind::Died: {
      v.status = protocol::Status::RuntimeError;
      std::string how = describe_exit(reply.evidence);
      std::string reason = "the candidate crashed the eval worker (" + (how.empty() ? "it exited" : how) + ")";
      if (reply.evidence.signal == "SIGKILL") reason += "; " + sigkill_clause(reply.evidence.oom_kills, "the worker");
      std::string last = last_line(reply.evidence);
      if (!last.empty()) reason += "; last output: " + last;
      v.reason = reason;
      v.evidence = reply.evidence;
      return false;
    }
    case WorkerReply::Kind::TimedOut: {
      v.status = protocol::Status::Timeout;
      std::string reason = "no result within the " + format_seconds(deadline_s) +
                           " deadline: the worker was killed (the candidate may loop forever or deadlock)";
      std::string last = last_line(reply.evidence);
      if (!last.empty()) reason += "; last output: " + last;
      v.reason = reason;
      v.evidence = reply.evidence;
      return false;
    }
    case WorkerReply::Kind::Cancelled: throw Cancelled();
  }
  return false;
}

}  // namespace hone::eval
