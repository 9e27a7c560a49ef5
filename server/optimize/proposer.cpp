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
  if (!signature.is_object()) return std::nullopt;
  auto count = [&](const char* key) {
    return signature.contains(key) && signature[key].is_array() ? static_cast<int>(signature[key].size()) : -1;
  };
  int in = count("inputs"), params = count("params"), out = count("outputs");
  if (in < 0 || params < 0 || out < 0) return std::nullopt;
  ExpectedSignature e;
  e.raw_params = in + params + out;
  e.torch_params = in + params;
  e.raw = signature.value("raw", "");
  e.torch = signature.value("torch", "");
  return e;
}

}  // namespace hone
