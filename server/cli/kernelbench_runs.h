// cli/kernelbench_runs.h: KernelBench's run layouts and eval-result format for `hone bench`
// (issue 15). A run folder holds answers as KernelBench writes them
// (`level_1_problem_19_sample_0_kernel.py`, or `level_1/problem_19/sample_0/<any>.py`) or files
// named after the task (`19_ReLU.py`); `--format kernelbench` writes KernelBench's eval-result
// fields per answer (compiled, correctness, runtime and ref_runtime in ms, runtime_stats,
// metadata) keyed by problem id, so KernelBench's analysis scripts read hone's results. Pure
// functions apart from listing folders; any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/verdict.h"

namespace hone::cli {

struct KernelBenchKey {
  int level = 0;    // 0: not known
  int problem = 0;
  int sample = 0;
};

// The level/problem/sample a path names in KernelBench's layouts; nullopt for other paths.
std::optional<KernelBenchKey> kernelbench_key(const std::filesystem::path& path);

// The problem number of a task file (`19_ReLU.py` -> 19) and its level from the folder
// (`level1/` -> 1); nullopt without a leading number.
std::optional<KernelBenchKey> task_key(const std::filesystem::path& task);

// The answers for a task in a run folder, in sample order: KernelBench-layout files of its level
// and problem (any level when the task's folder names none), then `<stem>.py` in the folder.
std::vector<std::filesystem::path> answers_for(const std::filesystem::path& task, const std::filesystem::path& run_dir);

// One answer's entry as KernelBench's eval writes it: {"sample_id", "compiled", "correctness",
// "runtime" (mean ms, -1 when not timed), "runtime_stats" {"mean","std","min","max","num_trials",
// "hardware","device"}, "ref_runtime" (the eager reference's mean ms, -1 without),
// "ref_runtime_stats", "metadata" {"hardware","device","hone_status","hone_reason","flags", and
// KernelBench's "compilation_error" / "correctness_issue" / "runtime_error" where they apply}}.
nlohmann::json kernelbench_entry(const protocol::Verdict& verdict, int sample);
// A task hone could not check at all (no verdict): compiled false, the error in metadata.
nlohmann::json kernelbench_error_entry(const std::string& status, const std::string& reason, int sample);

}  // namespace hone::cli
