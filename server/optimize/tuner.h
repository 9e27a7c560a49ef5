// optimize/tuner.h: the built-in proposer used when no LLM is configured. It searches what the
// kernel declares tunable (`// hone: tune` knobs: block and tile sizes, unroll factors, launch
// bounds) and compiler flag sets, by coordinate descent around the best verified configuration,
// finishing small spaces exhaustively. Every configuration goes through the same verifier.
// plan_round runs on the loop's thread; propose on sample threads.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "optimize/proposer.h"
#include "optimize/tune_knobs.h"

namespace hone {

// Flag sets tried for a language ("cuda" | "cpp"); the first is always "no extra flags".
std::vector<std::vector<std::string>> default_flag_sets(std::string_view language);

struct TunerSpace {
  std::vector<TuneKnob> knobs;
  std::vector<std::vector<std::string>> flag_sets;  // at least {{}}
  std::vector<std::string> errors;                  // unusable annotations ("line 12: ...")
  std::size_t size() const;                         // configurations in all
};

TunerSpace tuner_space(std::string_view source, std::string_view language, bool tune_flags);

class TunerProposer : public Proposer {
 public:
  // Exhaustive search finishes spaces up to this size once coordinate descent converges.
  static constexpr std::size_t kExhaustiveLimit = 256;
  // Writes a configuration's flags into its source (the engine's: the `// hone: flags=` line the
  // toolchain reads), so a candidate's text is what was built and an applied proposal rebuilds
  // with the same flags. Without one the flags travel only beside the source.
  using FlagWriter = std::function<std::string(std::string_view source, const std::vector<std::string>& flags)>;

  TunerProposer(std::string base_source, TunerSpace space, FlagWriter write_flags = {});

  std::string origin() const override { return "tuner"; }
  std::vector<ProposalRequest> plan_round(const SearchState& state, int round, int n) override;
  Proposal propose(const ProposalRequest& request, std::stop_token stop) override;
  nlohmann::json describe() const override;

  // The configuration of the kernel as written: {"knobs": {NAME: current}, "flags": []}.
  nlohmann::json baseline_config() const override;
  // A configuration's source (its flags written in when there is a FlagWriter) and flags.
  std::string source_for(const nlohmann::json& config) const;
  std::vector<std::string> flags_for(const nlohmann::json& config) const;

 private:
  // A configuration as value indices: one per knob, then the flag set's.
  using Point = std::vector<std::size_t>;
  nlohmann::json config_of(const Point& p) const;
  std::optional<Point> point_of(const nlohmann::json& config) const;
  std::vector<std::size_t> dimensions() const;

  std::string base_source_;
  TunerSpace space_;
  FlagWriter write_flags_;
};

}  // namespace hone
