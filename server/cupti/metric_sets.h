// cupti/metric_sets.h: the metrics hone asks CUPTI for, in priority order. The `default` set is
// packed into a replay-pass budget (2 passes on sm_90) by dropping the least important metrics
// that do not fit; `full` takes every valid one. Names differ per chip, so each entry lists
// alternatives; the first valid one is collected and reported under the entry's first name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hone::cupti {

struct MetricChoice {
  std::vector<std::string> names;  // names[0] is the canonical name hone's analysis reads
};

// The candidates of a set ("default" or "full") for a task dtype ("fp32", "fp16", "bf16",
// "fp64", "fp8", "int8", or "" when unknown: no tensor-op metric). Throws std::invalid_argument
// for an unknown set name.
std::vector<MetricChoice> metric_candidates(std::string_view set, std::string_view dtype);

}  // namespace hone::cupti
