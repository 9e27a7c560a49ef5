// runner/records_op.h: the `records` op: one forward call under CUPTI's activity trace (through
// libhone_cupti.so), with hone_spin holding the legacy stream before it and hone_marker after it,
// so the judge can tell work that escapes the timed region or leaves the caller's stream.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runner/cupti_library.h"
#include "runner/op_context.h"

namespace hone::runner {

// {"activities": [{"name", "kind", "stream", "start_us", "end_us"}], "caller_stream",
// "timed_us", "library_ops": []}. CPU: no activities, the call timed by the host clock.
// Throws OpError (unsupported when libhone_cupti.so is missing).
nlohmann::json run_records(const nlohmann::json& request, OpContext& ctx, CuptiLibrary& cupti);

// libhone_cupti's trace ({"kernels", "memcpys", "memsets"}) as the protocol lists activities: in
// start order, times in us from the earliest start; caller_stream becomes hone_spin's stream when
// it is null and a hone_spin is there.
nlohmann::json activities_json(const nlohmann::json& trace, nlohmann::json& caller_stream);

// "code: message" of a failed hone_cupti_begin / hone_cupti_end answer.
std::string cupti_error_text(const nlohmann::json& answer);

}  // namespace hone::runner
