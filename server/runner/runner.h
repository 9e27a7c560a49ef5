// runner/runner.h: hone-runner's ops (protocol/WORKER.md, "The candidate protocol"): map, load
// (raw and null forms), call, time, records, prepare_counters, state (unsupported here) and exit, dispatched by
// name; each request gets exactly one reply, and no request can stop the protocol (a malformed
// one is a bad_request). Driven by main() on the main thread, one datagram at a time.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/arenas.h"
#include "runner/backend.h"
#include "runner/channel.h"
#include "runner/cupti_library.h"
#include "runner/kernel.h"

namespace hone::runner {

class Runner {
 public:
  using Notify = std::function<void(const nlohmann::json&)>;

  // `notify` sends an event datagram before the op's reply (time's "enqueued" and "finished").
  Runner(Backend& backend, Notify notify);

  // The ready event, sent once before the first request.
  nlohmann::json ready() const;
  // The reply to one datagram (its descriptors are closed afterwards unless an op kept them).
  nlohmann::json handle(Datagram& datagram);
  // True after an exit request was answered.
  bool exiting() const { return exiting_; }

 private:
  using Handler = nlohmann::json (Runner::*)(const nlohmann::json&, std::vector<UniqueFd>&);

  nlohmann::json dispatch(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_map(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_load(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_call(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_time(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_records(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_prepare_counters(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_state(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  nlohmann::json op_exit(const nlohmann::json& request, std::vector<UniqueFd>& fds);

  Backend& backend_;
  Notify notify_;
  ArenaTable arenas_;
  Kernel kernel_;
  CuptiLibrary cupti_;
  const std::map<std::string, Handler> handlers_;
  bool loaded_ = false;       // a raw load was attempted: the process's one candidate
  std::string broken_;        // the sticky CUDA error that ended this process's usefulness
  std::string broken_name_;
  bool exiting_ = false;
};

}  // namespace hone::runner
