// optimize/run_export.h: a stored run as JSON lines of trajectories (`hone export RUN`), the
// shape RL and fine-tuning work reads: one line per candidate, oldest first, with its lineage,
// the chat messages (prompt, then the model's answer with its reasoning_content), the kernel
// source, the verifier's verdict and a reward; and a run as `hone runs` lists it. Called by the
// engine (Engine::export_run, Engine::runs) on the caller's thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "store/run_store.h"

namespace hone {

// reward: the candidate's verified speedup over the original kernel when correct (timed), else 0:
// the medians' ratio, where speedup.kernel is a point only when both times are quiet (else
// speedup.kernel_range, from both sides' p10..p90).
nlohmann::json trajectory_line(const RunRecord& run, const CandidateRecord& candidate,
                               const std::vector<CandidateRecord>& all);

// Every candidate of a run; throws std::runtime_error for an unknown run.
std::vector<nlohmann::json> export_run(RunStore& store, std::int64_t run_id);

// A run as `hone runs` lists it (no sources, no candidates).
protocol::RunListing run_listing(const RunRecord& run);

}  // namespace hone
