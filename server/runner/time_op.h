// runner/time_op.h: the `time` op (protocol/WORKER.md, the candidate protocol): clock settling,
// warm-up, then per timed call the input set and mixed rows copied into the targets, the read
// flush, and one mark pair around forward; mode "call" with the device idle before each call,
// mode "device" with every call enqueued behind hone_hold until the judge writes the release word.
#pragma once

#include <nlohmann/json.hpp>

#include "runner/cupti_library.h"
#include "runner/op_context.h"

namespace hone::runner {

// Runs one time request; the reply's fields (times_us, warmup_us, settle_ms, enqueue_s,
// spin_timed_out, method). Mode device: sends {"id", "event": "enqueued"} through ctx.notify once every
// call is queued, and {"id", "event": "finished"} once they ran (before the records are collected).
// kernel_records (mode device): hone_marker after each held call and the calls' activity records
// in "activities" (as the records op lists them), or "kernel_records_error" saying why not.
// Throws OpError.
nlohmann::json run_time(const nlohmann::json& request, OpContext& ctx, CuptiLibrary& cupti);

// The libhone_cupti request for a time op's kernel_counters (gpu__time_duration of at most
// `max_ranges` kernels, one pass): prepare_counters sets up this very request ahead, and a prepared
// session is used only by a begin asking for the same one.
nlohmann::json counter_request(std::size_t max_ranges);

}  // namespace hone::runner
