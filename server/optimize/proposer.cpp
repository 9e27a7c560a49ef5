// optimize/proposer.cpp: SearchState queries shared by the proposers and the loop, and the
// target's expected signature.
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
