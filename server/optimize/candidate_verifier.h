// optimize/candidate_verifier.h: how the optimizer has a candidate built and verified. The engine
// implements it over Engine::check and Engine::profile (EngineVerifier in engine/optimize.cpp);
// the loop calls verify() from several sample threads at once, so compiles overlap while the
// device's checks are serialised inside the engine.
#pragma once

#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "protocol/verdict.h"

namespace hone {

struct VerifyRequest {
  std::string source;                    // the whole kernel file
  std::vector<std::string> extra_flags;  // compiler flags (the tuner's)
  bool recheck = false;                  // the winner's re-verification: fresh seeds, more of them
};

// Thrown by verify() when there is no verdict to give: the call was cancelled, or the
// environment or the task is broken (the run cannot go on).
class VerifyError : public std::runtime_error {
 public:
  enum class Kind { Cancelled, Environment };
  VerifyError(Kind kind, const std::string& message, std::string detail = {})
      : std::runtime_error(message), kind_(kind), detail_(std::move(detail)) {}
  Kind kind() const { return kind_; }
  const std::string& detail() const { return detail_; }

 private:
  Kind kind_;
  std::string detail_;
};

class CandidateVerifier {
 public:
  virtual ~CandidateVerifier() = default;
  // Builds and checks one candidate and returns its verdict: a candidate's failure (compile
  // error, wrong answer, crash, cheat) is a verdict. Thread-safe.
  virtual protocol::Verdict verify(const VerifyRequest& request, std::stop_token stop) = 0;
  // The candidate's hardware profile for the model's prompt; nullopt when this verifier cannot
  // profile (the CPU) or the profile failed. Throws VerifyError(Cancelled) only. Thread-safe.
  virtual std::optional<protocol::ProfileReport> profile(const VerifyRequest&, std::stop_token) { return std::nullopt; }
};

}  // namespace hone
