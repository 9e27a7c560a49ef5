// optimize/verdict_facts.cpp: reading verdict JSON defensively (absent fields stay unset).
#include "optimize/verdict_facts.h"

namespace hone {
namespace {

std::optional<double> number_at(const nlohmann::json& j, const char* pointer) {
  nlohmann::json::json_pointer p(pointer);
  if (!j.is_object() || !j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}

}  // namespace

std::optional<double> VerdictFacts::speed_of_light_fraction() const {
  if (!floor_us || !p50_us || *p50_us <= 0) return std::nullopt;
  return *floor_us / *p50_us;
}

VerdictFacts verdict_facts(const nlohmann::json& v) {
  VerdictFacts f;
  if (!v.is_object()) return f;
  f.status = v.value("status", "");
  f.reason = v.contains("reason") && v["reason"].is_string() ? v["reason"].get<std::string>() : "";
  f.p50_us = number_at(v, "/timing/p50_us");
  f.speedup_eager = number_at(v, "/speedup/eager");
  f.speedup_compile = number_at(v, "/speedup/compile");
  f.floor_us = number_at(v, "/floor/floor_us");
  return f;
}

CandidateOutcome outcome_from_verdict(const nlohmann::json& verdict, double check_seconds) {
  auto f = verdict_facts(verdict);
  CandidateOutcome o;
  o.status = f.status.empty() ? "runtime_error" : f.status;
  o.reason = f.status.empty() ? "the verifier returned no status" : f.reason;
  o.verdict = verdict;
  o.p50_us = f.p50_us;
  o.speedup_eager = f.speedup_eager;
  o.speedup_compile = f.speedup_compile;
  o.check_seconds = check_seconds;
  return o;
}

}  // namespace hone
