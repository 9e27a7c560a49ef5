// runner/time_plan.h: a `time` request checked and planned before anything runs: the targets
// forward reads, the input sets and output slots, the schedule of timed calls, and the copies
// that move a set (or one row of it) into the targets, or mix every set into one. Made by
// run_time on the main thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/args.h"
#include "runner/arenas.h"
#include "runner/backend.h"

namespace hone::runner {

// `rows` runs of `width` bytes, `pitch` apart, starting `offset` bytes past a tensor's data:
// the same places in the target and in a set (their layouts are identical).
struct CopyRun {
  std::size_t offset = 0, pitch = 0, width = 0, rows = 0;
};

// The runs that copy every element of t (row empty) or of row `row` along its first dimension.
// Dimensions of size 1 or stride 0 hold one element each. Throws OpError for layouts whose
// elements overlap, or that need more than 65536 runs.
std::vector<CopyRun> plan_copy(const TensorView& t, std::optional<std::int64_t> row);

struct RowSwap {
  std::size_t arg = 0;   // index into the targets
  std::int64_t row = 0;  // along the first dimension
  std::size_t donor = 0; // the set it comes from
};

struct TimedCall {
  std::size_t set = 0;
  std::size_t slot = 0;
  std::vector<RowSwap> rows;
  std::vector<std::size_t> mixed;  // targets made fresh from every set, element by element (hone_mix)
  unsigned mix_seed = 0;
};

struct TimePlan {
  bool device_mode = false;
  std::vector<ArgSpec> targets;
  std::vector<std::vector<ArgSpec>> sets;       // each shaped like targets
  std::vector<std::vector<TensorView>> slots;   // forward's outputs, one list per slot
  std::vector<TimedCall> schedule;
  int warmup = 0;
  double settle_ms = 0;
  double settle_min_ms = 0;                     // settling lasts this long at least (cold clocks ramp slowly)
  std::size_t flush_bytes = 0;
  std::optional<TensorView> release;            // device mode: the 32-bit release word
  double spin_timeout_ms = 10000;
  bool kernel_records = false;                  // device mode: activity records of the held calls, a marker after each
  std::size_t kernel_counters = 0;              // call mode, CUDA: gpu__time_duration of every kernel (Range Profiler,
                                                // at most this many ranges), a marker after each call
  bool flush_each_kernel = false;               // kernel_counters: hone_flush before each of a call's kernels (the
                                                // kernel prologue), not once before the call: as ncu flushes
  std::vector<std::vector<CopyRun>> whole;      // per target: its whole-tensor copy (empty: a scalar)
  std::vector<std::vector<CopyRun>> row0;       // per target: the copy of row 0
  std::vector<std::size_t> row_bytes;           // per target: bytes from one row to the next
};

// Parses and checks a time request; throws OpError (bad_request, unsupported).
TimePlan plan_time(const nlohmann::json& request, const ArenaTable& arenas, const Backend& backend);

}  // namespace hone::runner
