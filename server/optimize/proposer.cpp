// optimize/proposer.cpp: SearchState queries shared by the proposers and the loop, the speedup
// over the original kernel (the loop's events and results, the export), and the target's
// expected signature.
#include "optimize/proposer.h"

#include <algorithm>

#include "optimize/optimize_target.h"

namespace hone {

std::vector<const CandidateRecord*> SearchState::ranked_correct() const {
  std::vector<const CandidateRecord*> out;
  if (!candidates) return out;
  for (const auto& c : *candidates)
    if (c.status == "correct" && c.p50_us && c.recheck_passed != false) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return *a->p50_us < *b->p50_us; });
  return out;
}

const CandidateRecord* SearchState::find(std::int64_t id) const {
  if (!candidates) return nullptr;
  for (const auto& c : *candidates)
    if (c.id == id) return &c;
  return nullptr;
}

std::optional<protocol::TimeSummary> time_of(const std::optional<protocol::Verdict>& verdict) {
  return verdict && verdict->timing ? std::optional(protocol::basis_time(*verdict->timing)) : std::nullopt;
}

std::optional<protocol::TimeSummary> original_time(const CandidateRecord* original) {
  return original && original->status == "correct" ? time_of(original->verdict) : std::nullopt;
}

void over_original(const std::optional<protocol::TimeSummary>& original,
                   const std::optional<protocol::TimeSummary>& candidate, std::optional<double>& point,
                   std::optional<protocol::SpeedupRange>& range) {
  if (original && candidate) protocol::divide_times(*original, *candidate, false, point, range);
}

std::optional<ExpectedSignature> OptimizeTarget::expected_signature() const {
  if (!signature) return std::nullopt;
  const int in = static_cast<int>(signature->inputs.size()), params = static_cast<int>(signature->params.size());
  ExpectedSignature e;
  e.raw_params = in + params + static_cast<int>(signature->outputs.size());
  e.torch_params = in + params;
  e.raw = signature->raw;
  e.torch = signature->torch;
  return e;
}

}  // namespace hone
