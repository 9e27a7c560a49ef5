// cli/bench_summary.h: what `hone bench` makes of a task set's verdicts: per-task rows, the share
// of tasks that are correct and faster than a threshold (KernelBench's fast_p, over ALL tasks,
// so a missing or failing kernel counts against it), geometric-mean speedups over the correct
// ones, a readable table, a JSON summary and an SVG plot of fast_p against the threshold.
// Pure functions, used by cmd_bench.cpp and tests/cli; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/verdict.h"

namespace hone::cli {

struct BenchRow {
  std::string task;    // the task file
  std::string kernel;  // the kernel file; empty when none was found
  std::string status;  // a verdict status, or "missing" (no kernel) / "error" (hone could not check it)
  std::string reason;  // empty when correct
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  // A noisy timing on either side gives no point but a range (issue 14).
  std::optional<protocol::SpeedupRange> speedup_eager_range;
  std::optional<protocol::SpeedupRange> speedup_compile_range;
  std::vector<std::string> flags;
};

// fast_p: tasks whose kernel is correct AND faster than `threshold` times the baseline, over all
// rows. `compile` picks the torch.compile speedup instead of eager. A row with only a range counts
// when its low end is above the threshold (certainly faster); a correct row with neither counts
// only at threshold 0 (then fast_0 is the share of correct kernels).
double fast_p(const std::vector<BenchRow>& rows, double threshold, bool compile);

// Geometric mean of the speedups of the correct rows that have one; nullopt when none do.
std::optional<double> geomean_speedup(const std::vector<BenchRow>& rows, bool compile);

// The thresholds reported (0, 0.5, 0.8, 1, 1.5, 2, 3, 5).
const std::vector<double>& bench_thresholds();

// The table, one line per task, then the summary lines.
std::string bench_text(const std::vector<BenchRow>& rows);

// {"tasks": [...rows], "summary": {"tasks", "correct", "by_status", "fast_p": {"eager": {"1": ..}, "compile": ..},
//  "geomean_speedup": {"eager", "compile"}}}
nlohmann::json bench_json(const std::vector<BenchRow>& rows);

// fast_p against the threshold (log-spaced from 0.1 to 10, and the eager and compile curves)
// as a standalone SVG document.
std::string bench_svg(const std::vector<BenchRow>& rows, const std::string& title);

}  // namespace hone::cli
