// optimize/tuner.cpp: the tuner's search space, coordinate descent and exhaustive completion.
#include "optimize/tuner.h"

#include <algorithm>
#include <map>
#include <set>

namespace hone {

std::vector<std::vector<std::string>> default_flag_sets(std::string_view language) {
  if (language == "cuda") return {{}, {"-use_fast_math"}, {"--extra-device-vectorization"}};
  return {{}, {"-march=native"}, {"-ffast-math"}, {"-march=native", "-ffast-math"}, {"-funroll-loops"}, {"-O2"}};
}

std::size_t TunerSpace::size() const {
  std::size_t n = std::max<std::size_t>(flag_sets.size(), 1);
  for (const auto& k : knobs) n *= k.values.size();
  return n;
}

TunerSpace tuner_space(std::string_view source, std::string_view language, bool tune_flags) {
  TunerSpace s;
  auto parsed = parse_tune_knobs(source);
  s.knobs = std::move(parsed.knobs);
  s.errors = std::move(parsed.errors);
  s.flag_sets = tune_flags ? default_flag_sets(language) : std::vector<std::vector<std::string>>{{}};
  return s;
}

TunerProposer::TunerProposer(std::string base_source, TunerSpace space, FlagWriter write_flags)
    : base_source_(std::move(base_source)), space_(std::move(space)), write_flags_(std::move(write_flags)) {
  if (space_.flag_sets.empty()) space_.flag_sets.push_back({});
}

std::vector<std::size_t> TunerProposer::dimensions() const {
  std::vector<std::size_t> dims;
  for (const auto& k : space_.knobs) dims.push_back(k.values.size());
  dims.push_back(space_.flag_sets.size());
  return dims;
}

nlohmann::json TunerProposer::config_of(const Point& p) const {
  nlohmann::json knobs = nlohmann::json::object();
  for (std::size_t i = 0; i < space_.knobs.size(); ++i) knobs[space_.knobs[i].name] = space_.knobs[i].values[p[i]];
  return {{"knobs", knobs}, {"flags", space_.flag_sets[p.back()]}};
}

std::optional<TunerProposer::Point> TunerProposer::point_of(const nlohmann::json& config) const {
  if (!config.is_object() || !config.contains("knobs") || !config.contains("flags")) return std::nullopt;
  Point p;
  for (const auto& k : space_.knobs) {
    if (!config["knobs"].contains(k.name)) return std::nullopt;
    auto v = config["knobs"][k.name].get<std::string>();
    auto it = std::find(k.values.begin(), k.values.end(), v);
    if (it == k.values.end()) return std::nullopt;
    p.push_back(static_cast<std::size_t>(it - k.values.begin()));
  }
  auto flags = config["flags"].get<std::vector<std::string>>();
  auto it = std::find(space_.flag_sets.begin(), space_.flag_sets.end(), flags);
  if (it == space_.flag_sets.end()) return std::nullopt;
  p.push_back(static_cast<std::size_t>(it - space_.flag_sets.begin()));
  return p;
}

nlohmann::json TunerProposer::baseline_config() const { return config_of(Point(space_.knobs.size() + 1, 0)); }

std::string TunerProposer::source_for(const nlohmann::json& config) const {
  std::map<std::string, std::string> values;
  for (const auto& [name, v] : config["knobs"].items()) values[name] = v.get<std::string>();
  std::string source = apply_knob_values(base_source_, space_.knobs, values);
  const auto flags = flags_for(config);
  return write_flags_ && !flags.empty() ? write_flags_(source, flags) : source;
}

std::vector<std::string> TunerProposer::flags_for(const nlohmann::json& config) const {
  return config["flags"].get<std::vector<std::string>>();
}

std::vector<ProposalRequest> TunerProposer::plan_round(const SearchState& state, int round, int n) {
  std::set<Point> tried;
  for (const auto& c : *state.candidates)
    if (auto p = point_of(c.config)) tried.insert(*p);
  Point center(space_.knobs.size() + 1, 0);
  auto ranked = state.ranked_correct();
  for (const auto* c : ranked)
    if (auto p = point_of(c->config)) {
      center = *p;
      break;
    }
  auto dims = dimensions();
  // Neighbours of the centre along each dimension, taken in turn from each dimension so that one
  // round spreads over several knobs.
  std::vector<std::vector<Point>> per_dim(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d)
    for (std::size_t v = 0; v < dims[d]; ++v) {
      if (v == center[d]) continue;
      Point p = center;
      p[d] = v;
      if (!tried.count(p)) per_dim[d].push_back(p);
    }
  std::vector<Point> chosen;
  for (std::size_t i = 0; chosen.size() < static_cast<std::size_t>(n); ++i) {
    bool any = false;
    for (const auto& list : per_dim)
      if (i < list.size() && chosen.size() < static_cast<std::size_t>(n)) {
        chosen.push_back(list[i]);
        any = true;
      }
    if (!any) break;
  }
  // Converged with room left: finish a small space exhaustively.
  if (chosen.empty() && space_.size() <= kExhaustiveLimit) {
    Point p(dims.size(), 0);
    while (chosen.size() < static_cast<std::size_t>(n)) {
      if (!tried.count(p)) chosen.push_back(p);
      std::size_t d = 0;
      while (d < dims.size() && ++p[d] == dims[d]) p[d++] = 0;
      if (d == dims.size()) break;
    }
  }
  std::vector<ProposalRequest> out;
  const CandidateRecord* parent = ranked.empty() ? (state.baseline_id ? state.find(*state.baseline_id) : nullptr)
                                                 : ranked.front();
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    ProposalRequest r;
    r.round = round;
    r.sample = static_cast<int>(i);
    r.parent = parent;
    r.config = config_of(chosen[i]);
    r.source = source_for(r.config);
    r.flags = flags_for(r.config);
    out.push_back(std::move(r));
  }
  return out;
}

Proposal TunerProposer::propose(const ProposalRequest& request, std::stop_token) {
  Proposal p;
  p.source = request.source;
  p.flags = request.flags;
  p.config = request.config;
  return p;
}

nlohmann::json TunerProposer::describe() const {
  nlohmann::json knobs = nlohmann::json::array();
  for (const auto& k : space_.knobs)
    knobs.push_back({{"name", k.name}, {"line", k.line}, {"current", k.current}, {"values", k.values}});
  return {{"knobs", knobs}, {"flag_sets", space_.flag_sets}, {"space_size", space_.size()}, {"errors", space_.errors}};
}

}  // namespace hone
