// optimize/verdict_facts.h: the few facts the optimizer reads from a verdict (the JSON shape of
// protocol/schema/verdict.schema.json): status, reason, median time, speedups, physical floor.
// Pure functions, any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store/run_store.h"

namespace hone {

struct VerdictFacts {
  std::string status;  // "correct", "incorrect", "compile_error", ... ("" when absent)
  std::string reason;
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  std::optional<double> floor_us;  // physical floor (GPU only)

  bool correct() const { return status == "correct"; }
  // floor / p50: 1.0 is speed-of-light for compulsory memory traffic; nullopt without a floor.
  std::optional<double> speed_of_light_fraction() const;
};

VerdictFacts verdict_facts(const nlohmann::json& verdict);

// The outcome to store for a verdict: its status and reason (a correct verdict without a median
// time is stored as is; the optimizer ranks only timed candidates).
CandidateOutcome outcome_from_verdict(const nlohmann::json& verdict, double check_seconds);

}  // namespace hone
