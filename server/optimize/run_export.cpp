// optimize/run_export.cpp: trajectory lines and run listings from store records.
#include "optimize/run_export.h"

#include <algorithm>
#include <stdexcept>

#include "optimize/proposer.h"

namespace hone {
namespace {

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

const CandidateRecord* find(const std::vector<CandidateRecord>& all, std::int64_t id) {
  for (const auto& c : all)
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace

nlohmann::json trajectory_line(const RunRecord& run, const CandidateRecord& c, const std::vector<CandidateRecord>& all) {
  const CandidateRecord* baseline = nullptr;
  for (const auto& x : all)
    if (x.origin == "baseline") baseline = &x;
  // The reward is the medians' ratio; the speedup a point only when both times are quiet.
  std::optional<double> reward, vs_kernel;
  std::optional<protocol::SpeedupRange> vs_kernel_range;
  if (c.status == "correct") {
    const auto original = original_time(baseline), own = time_of(c.verdict);
    if (original && own && original->p50_us > 0 && own->p50_us > 0) reward = original->p50_us / own->p50_us;
    over_original(original, own, vs_kernel, vs_kernel_range);
  }
  nlohmann::json lineage = nlohmann::json::array();
  for (const CandidateRecord* p = &c; p; p = p->parent_id ? find(all, *p->parent_id) : nullptr) {
    lineage.insert(lineage.begin(), p->id);
    if (lineage.size() > all.size()) break;  // a cycle cannot happen, but never loop forever
  }
  nlohmann::json messages = c.prompt.is_array() ? c.prompt : nlohmann::json::array();
  if (!c.reply.empty() || !c.reasoning.empty()) {
    nlohmann::json answer = {{"role", "assistant"}, {"content", c.reply}};
    if (!c.reasoning.empty()) answer["reasoning_content"] = c.reasoning;
    messages.push_back(answer);
  }
  return {{"run_id", run.id},
          {"candidate_id", c.id},
          {"parent_id", c.parent_id ? nlohmann::json(*c.parent_id) : nlohmann::json()},
          {"lineage", lineage},
          {"round", c.round},
          {"sample", c.sample},
          {"origin", c.origin},
          {"kernel_path", run.kernel_path},
          {"task_path", run.task_path},
          {"device", run.device},
          {"messages", messages},
          {"source", c.source},
          {"config", c.config},
          {"status", c.status},
          {"reason", c.reason},
          {"p50_us", optional_number(c.p50_us)},
          {"speedup", {{"eager", optional_number(c.speedup_eager)},
                       {"compile", optional_number(c.speedup_compile)},
                       {"kernel", optional_number(vs_kernel)},
                       {"kernel_range", vs_kernel_range ? nlohmann::json(*vs_kernel_range) : nlohmann::json()}}},
          {"recheck_passed", c.recheck_passed ? nlohmann::json(*c.recheck_passed) : nlohmann::json()},
          {"reward", reward.value_or(0.0)},
          {"verdict", c.verdict ? nlohmann::json(*c.verdict) : nlohmann::json()},
          {"usage", {{"prompt_tokens", c.usage.prompt_tokens},
                     {"completion_tokens", c.usage.completion_tokens},
                     {"reasoning_tokens", c.usage.reasoning_tokens},
                     {"estimated", c.usage.estimated},
                     {"cost_usd", c.usage.cost_usd}}},
          {"llm_seconds", c.llm_seconds},
          {"check_seconds", c.check_seconds},
          {"created_at", c.created_at}};
}

std::vector<nlohmann::json> export_run(RunStore& store, std::int64_t run_id) {
  auto run = store.run(run_id);
  if (!run) throw std::runtime_error("no run " + std::to_string(run_id) + " in " + store.path().string());
  auto all = store.candidates(run_id);
  std::vector<nlohmann::json> lines;
  lines.reserve(all.size());
  for (const auto& c : all) lines.push_back(trajectory_line(*run, c, all));
  return lines;
}

protocol::RunListing run_listing(const RunRecord& run) {
  auto number = [&](const char* key) -> std::optional<double> {
    auto it = run.summary.find(key);
    if (it != run.summary.end() && it->is_number()) return it->get<double>();
    return std::nullopt;
  };
  auto range = [&](const char* key) -> std::optional<protocol::SpeedupRange> {
    auto it = run.summary.find(key);
    if (it == run.summary.end() || !it->is_object()) return std::nullopt;
    return it->get<protocol::SpeedupRange>();
  };
  protocol::RunListing l;
  l.id = run.id;
  l.kernel_path = run.kernel_path;
  l.task_path = run.task_path;
  l.device = run.device;
  l.proposer = run.proposer;
  l.status = run.status;
  l.error = run.error;
  l.created_at = run.created_at;
  l.updated_at = run.updated_at;
  l.elapsed_s = run.elapsed_s;
  l.rounds_done = run.rounds_done;
  l.best_candidate = run.best_candidate;
  l.candidates = run.summary.value("candidates", 0);
  if (auto w = run.summary.find("winner"); w != run.summary.end() && w->is_number_integer()) l.winner = w->get<std::int64_t>();
  l.winner_vs_kernel = number("winner_speedup_vs_kernel");
  l.winner_vs_kernel_range = range("winner_speedup_vs_kernel_range");
  l.winner_speedup_eager = number("winner_speedup_eager");
  l.winner_speedup_eager_range = range("winner_speedup_eager_range");
  l.best_vs_kernel = number("best_vs_kernel");
  l.best_vs_kernel_range = range("best_vs_kernel_range");
  l.best_speedup_eager = number("best_speedup_eager");
  l.best_speedup_eager_range = range("best_speedup_eager_range");
  l.summary = run.summary;
  l.config = run.config;
  return l;
}

}  // namespace hone
