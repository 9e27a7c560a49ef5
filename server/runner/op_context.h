// runner/op_context.h: what the time and records ops work with: the device, the arenas, the
// loaded kernel, and a way to send an event (time's "enqueued" and "finished") before the op's reply.
#pragma once

#include <functional>

#include <nlohmann/json.hpp>

#include "runner/arenas.h"
#include "runner/backend.h"
#include "runner/kernel.h"

namespace hone::runner {

struct OpContext {
  Backend& backend;
  const ArenaTable& arenas;
  Kernel& kernel;
  std::function<void(const nlohmann::json&)> notify;  // sends one event datagram now
  nlohmann::json id;                                   // the request's id
};

}  // namespace hone::runner
