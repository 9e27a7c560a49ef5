// optimize/optimizer.cpp: the loop's rounds, budgets, stopping rules, persistence and the
// winner's re-verification.
#include "optimize/optimizer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <thread>

#include "protocol/verdict_text.h"
#include "support/unified_diff.h"

namespace hone {
namespace {

std::vector<std::string> flags_of(const CandidateRecord& c) {
  if (c.config.is_object() && c.config.contains("flags") && c.config["flags"].is_array())
    return c.config["flags"].get<std::vector<std::string>>();
  return {};
}

// What a candidate tried, for its progress line.
std::string tried_text(const CandidateRecord& c) {
  if (c.origin == "baseline") return "as written";
  std::string out;
  if (c.config.is_object() && c.config.contains("knobs") && c.config["knobs"].is_object())
    for (const auto& [name, value] : c.config["knobs"].items())
      out += (out.empty() ? "" : ", ") + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  const auto flags = flags_of(c);
  if (!flags.empty()) {
    out += out.empty() ? "flags" : ", flags";
    for (const auto& f : flags) out += " " + f;
  } else if (c.origin == "tuner") {
    out += out.empty() ? "no extra flags" : ", no extra flags";
  }
  if (out.empty() && c.origin == "llm")
    out = c.parent_id ? "the model's rewrite of #" + std::to_string(*c.parent_id) : "the model's rewrite";
  return out;
}

// A number or a speedup range as the run's summary keeps it; null when absent.
template <class T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

// The median of the time speedups divide (device time where there is one, issue 14): candidates
// are ranked, and compared with the original kernel, by what their speedups say.
std::optional<double> p50_of(const protocol::Verdict& v) {
  return v.timing ? std::optional(protocol::basis_time(*v.timing).p50_us) : std::nullopt;
}

// The speedup over eager as a range, when a noisy timing left the verdict no point.
std::optional<protocol::SpeedupRange> eager_range_of(const std::optional<protocol::Verdict>& v) {
  return v && v->speedup ? v->speedup->eager_range : std::nullopt;
}

// What a verdict decides about a candidate, as the store keeps it.
CandidateOutcome outcome_of(const protocol::Verdict& v, double check_seconds) {
  CandidateOutcome o;
  o.status = std::string(protocol::to_string(v.status));
  o.reason = v.reason.value_or("");
  o.verdict = v;
  o.p50_us = p50_of(v);
  if (v.speedup) {
    o.speedup_eager = v.speedup->eager;
    o.speedup_compile = v.speedup->compile;
  }
  o.check_seconds = check_seconds;
  return o;
}

// A candidate as a result names it.
CandidateSummary summary_of(const CandidateRecord& c) {
  return CandidateSummary{c.id,     c.round,         c.origin,        c.status,          c.reason, c.source,
                          flags_of(c), c.p50_us,     c.speedup_eager, c.speedup_compile, c.verdict};
}

// floor / p50: 1.0 is speed-of-light for compulsory memory traffic; nullopt without a floor.
std::optional<double> speed_of_light_fraction(const std::optional<protocol::Verdict>& v) {
  const std::optional<double> p50 = v ? p50_of(*v) : std::nullopt;
  if (!v || !v->floor || !p50 || *p50 <= 0) return std::nullopt;
  return v->floor->floor_us / *p50;
}

}  // namespace

Optimizer::Optimizer(RunStore& store, CandidateVerifier& verifier, Proposer& proposer, const OptimizeTarget& target,
                     OptimizeOptions options)
    : store_(store), verifier_(verifier), proposer_(proposer), target_(target), options_(std::move(options)) {
  options_.samples = std::max(options_.samples, 1);
  options_.max_rechecks = std::max(options_.max_rechecks, 1);
}

OptimizeResult Optimizer::run(const nlohmann::json& run_config, std::stop_token stop, EventSink on_event) {
  sink_ = std::move(on_event);
  RunRecord run;
  run.kernel_path = target_.kernel_path.string();
  run.task_path = target_.task_path.string();
  run.device = std::string(target_.device.kind_name());
  run.proposer = proposer_.origin();
  run.config = run_config;
  run.base_source = target_.base_source;
  run.id = store_.create_run(run);
  return execute(std::move(run), stop);
}

OptimizeResult Optimizer::resume(std::int64_t run_id, std::stop_token stop, EventSink on_event) {
  sink_ = std::move(on_event);
  auto run = store_.run(run_id);
  if (!run) throw std::runtime_error("no run " + std::to_string(run_id) + " in " + store_.path().string());
  return execute(std::move(*run), stop);
}

void Optimizer::emit(OptimizeEvent event) {
  if (!sink_) return;
  std::lock_guard lock(event_mutex_);
  sink_(event);
}

const CandidateRecord* Optimizer::baseline() const {
  for (const auto& c : candidates_)
    if (c.origin == "baseline") return &c;
  return nullptr;
}

std::map<std::string, int> Optimizer::counts() const {
  std::map<std::string, int> out;
  for (const auto& c : candidates_)
    if (c.origin != "baseline") ++out[c.status];
  return out;
}

CandidateUsage Optimizer::usage() const {
  CandidateUsage u;
  for (const auto& c : candidates_) {
    u.prompt_tokens += c.usage.prompt_tokens;
    u.completion_tokens += c.usage.completion_tokens;
    u.reasoning_tokens += c.usage.reasoning_tokens;
    u.cost_usd += c.usage.cost_usd;
    u.estimated = u.estimated || c.usage.estimated;
  }
  return u;
}

OptimizeEvent Optimizer::progress_event(OptimizeEvent::Kind kind) const {
  std::lock_guard lock(state_mutex_);
  OptimizeEvent e;
  e.kind = kind;
  e.run_id = run_id_;
  e.round = round_;
  e.rounds = options_.rounds;
  for (const auto& c : candidates_) {
    if (c.origin == "baseline") continue;
    ++e.candidates;
    e.correct += c.status == "correct";
  }
  e.candidates += new_candidates_;
  e.correct += static_cast<int>(round_correct_.size());
  SearchState state{&candidates_, std::nullopt};
  auto ranked = state.ranked_correct();
  const CandidateRecord* best = ranked.empty() ? nullptr : ranked.front();
  for (const auto& c : round_correct_)
    if (!best || *c.p50_us < *best->p50_us) best = &c;
  if (best) {
    e.best_p50_us = best->p50_us;
    e.best_speedup_eager = best->speedup_eager;
    e.best_speedup_eager_range = eager_range_of(best->verdict);
    over_original(original_time(baseline()), time_of(best->verdict), e.best_vs_kernel, e.best_vs_kernel_range);
  }
  e.elapsed_s = elapsed_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
  return e;
}

bool Optimizer::verify_candidate(CandidateRecord& c, std::stop_token stop) {
  auto start = std::chrono::steady_clock::now();
  std::optional<protocol::Verdict> verdict;
  try {
    verdict = verifier_.verify(VerifyRequest{c.source, flags_of(c), false}, stop);
  } catch (const VerifyError& e) {
    if (e.kind() == VerifyError::Kind::Cancelled) return false;  // stays pending: a resume verifies it
    throw;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CandidateOutcome outcome = outcome_of(*verdict, seconds);
  store_.record_outcome(c.id, outcome);
  c.status = outcome.status;
  c.reason = outcome.reason;
  c.verdict = outcome.verdict;
  c.p50_us = outcome.p50_us;
  c.speedup_eager = outcome.speedup_eager;
  c.speedup_compile = outcome.speedup_compile;
  c.check_seconds = seconds;
  return true;
}

void Optimizer::save_progress(RunRecord& run) {
  auto e = progress_event(OptimizeEvent::Kind::Note);
  run.elapsed_s = e.elapsed_s;
  run.rounds_done = std::max(run.rounds_done, round_);
  SearchState state{&candidates_, std::nullopt};
  auto ranked = state.ranked_correct();
  run.best_candidate = ranked.empty() ? std::nullopt : std::optional<std::int64_t>(ranked.front()->id);
  auto u = usage();
  run.summary = {{"counts", counts()},
                 {"candidates", e.candidates},
                 {"best_p50_us", optional_json(e.best_p50_us)},
                 {"best_speedup_eager", optional_json(e.best_speedup_eager)},
                 {"best_speedup_eager_range", optional_json(e.best_speedup_eager_range)},
                 {"best_vs_kernel", optional_json(e.best_vs_kernel)},
                 {"best_vs_kernel_range", optional_json(e.best_vs_kernel_range)},
                 {"tokens", u.prompt_tokens + u.completion_tokens},
                 {"cost_usd", u.cost_usd},
                 {"proposer", proposer_.describe()}};
  store_.update_run(run);
}

void Optimizer::run_round(int round, std::vector<ProposalRequest> requests, std::stop_token stop) {
  std::vector<std::optional<CandidateRecord>> made(requests.size());
  std::vector<std::exception_ptr> errors(requests.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      threads.emplace_back([&, i] {
        try {
          const auto& req = requests[i];
          Proposal p = proposer_.propose(req, stop);
          if (!p.source && p.status == "cancelled") return;
          CandidateRecord c;
          c.run_id = run_id_;
          c.parent_id = req.parent ? std::optional<std::int64_t>(req.parent->id) : std::nullopt;
          c.round = round;
          c.sample = req.sample;
          c.origin = proposer_.origin();
          c.source = p.source.value_or("");
          c.config = p.config;
          if (!p.flags.empty()) c.config["flags"] = p.flags;
          c.prompt = to_json(p.prompt);
          c.reply = p.reply;
          c.reasoning = p.reasoning;
          c.status = p.source ? "pending" : p.status;
          c.reason = p.reason;
          c.usage = p.usage;
          c.llm_seconds = p.llm_seconds;
          c.id = store_.add_candidate(c);
          {
            std::lock_guard lock(state_mutex_);
            ++new_candidates_;
          }
          auto proposed = progress_event(OptimizeEvent::Kind::Proposed);
          proposed.candidate_id = c.id;
          proposed.status = c.status;
          proposed.message = p.source ? "verifying" : c.reason;
          proposed.tried = tried_text(c);
          emit(proposed);
          if (p.source && verify_candidate(c, stop)) {
            {
              std::lock_guard lock(state_mutex_);
              made[i] = c;
              if (c.status == "correct" && c.p50_us) round_correct_.push_back(c);
            }
            auto verified = progress_event(OptimizeEvent::Kind::Verified);
            verified.candidate_id = c.id;
            verified.status = c.status;
            verified.message = c.reason;
            fill_measurement(verified, c);
            emit(verified);
          } else {
            std::lock_guard lock(state_mutex_);
            made[i] = c;
          }
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
  }
  std::lock_guard lock(state_mutex_);
  for (auto& m : made)
    if (m) candidates_.push_back(std::move(*m));
  new_candidates_ = 0;
  round_correct_.clear();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void Optimizer::verify_pending(const RunRecord& run, std::stop_token stop) {
  if (!baseline()) {
    CandidateRecord b;
    b.run_id = run.id;
    b.origin = "baseline";
    b.source = target_.base_source;
    b.config = proposer_.baseline_config();
    b.id = store_.add_candidate(b);
    std::lock_guard lock(state_mutex_);
    candidates_.push_back(b);
  }
  for (std::size_t i = 0; i < candidates_.size() && !stop.stop_requested(); ++i) {
    if (candidates_[i].status != "pending") continue;
    CandidateRecord copy = candidates_[i];
    if (verify_candidate(copy, stop)) {
      std::lock_guard lock(state_mutex_);
      candidates_[i] = copy;
    }
    auto e = progress_event(OptimizeEvent::Kind::Verified);
    e.candidate_id = copy.id;
    e.status = copy.status;
    e.message = copy.origin == "baseline" ? "the original kernel: " + (copy.status == "correct" ? std::string("correct") : copy.reason)
                                          : copy.reason;
    fill_measurement(e, copy);
    emit(e);
  }
}

std::string Optimizer::run_rounds(RunRecord& run, std::stop_token stop) {
  for (int round = run.rounds_done + 1; round <= options_.rounds; ++round) {
    if (stop.stop_requested()) break;
    SearchState state{&candidates_, baseline() ? std::optional<std::int64_t>(baseline()->id) : std::nullopt};
    if (options_.token_budget) {
      auto u = usage();
      if (u.prompt_tokens + u.completion_tokens >= *options_.token_budget) return "tokens";
    }
    auto ranked = state.ranked_correct();
    if (!ranked.empty()) {
      auto sol = speed_of_light_fraction(ranked.front()->verdict);
      if (sol && *sol >= options_.stop_at_speed_of_light) return "speed_of_light";
    }
    profile_best(stop);
    auto requests = proposer_.plan_round(state, round, options_.samples);
    if (requests.empty()) return "exhausted";
    {
      std::lock_guard lock(state_mutex_);
      round_ = round;
    }
    auto e = progress_event(OptimizeEvent::Kind::RoundStarted);
    e.message = "round " + std::to_string(round) + ": " + std::to_string(requests.size()) + " candidate(s)";
    emit(e);
    run_round(round, std::move(requests), stop);
    if (!stop.stop_requested()) save_progress(run);
  }
  return "rounds";
}

void Optimizer::fill_result(RunRecord& run, OptimizeResult& result) {
  if (result.best) {
    run.best_candidate = result.best->id;
    run.summary["winner"] = result.best->id;
    run.summary["winner_speedup_vs_kernel"] = optional_json(result.speedup_vs_kernel);
    run.summary["winner_speedup_vs_kernel_range"] = optional_json(result.speedup_vs_kernel_range);
    run.summary["winner_speedup_eager"] = optional_json(result.speedup_eager);
    run.summary["winner_speedup_eager_range"] = optional_json(eager_range_of(result.best_recheck));
    run.summary["winner_p50_us"] = optional_json(result.best_p50_us);
    store_.update_run(run);
  }
  result.status = run.status;
  if (baseline()) result.baseline = summary_of(*baseline());
  result.counts = counts();
  result.candidates = 0;
  for (const auto& [status, n] : result.counts) result.candidates += n;
  result.rounds_done = run.rounds_done;
  result.elapsed_s = run.elapsed_s;
  result.usage = usage();
  result.proposer = proposer_.describe();
}

OptimizeResult Optimizer::execute(RunRecord run, std::stop_token external) {
  session_start_ = std::chrono::steady_clock::now();
  run_id_ = run.id;
  elapsed_before_ = run.elapsed_s;
  round_ = run.rounds_done;
  candidates_ = store_.candidates(run.id);
  OptimizeResult result;
  result.run_id = run.id;

  std::stop_source stop;
  std::stop_callback forward_cancel(external, [&] { stop.request_stop(); });
  std::atomic<bool> budget_spent{false};
  // The budget is the search's: it starts once the original kernel (and anything pending from an
  // interrupted run) is verified, so a slow first check (its baselines, a cold GPU) takes no
  // candidate's time.
  std::optional<std::jthread> watchdog;
  auto start_budget = [&] {
    const auto deadline = std::chrono::steady_clock::now() + options_.budget;
    watchdog.emplace([&, deadline](std::stop_token wd) {
      std::mutex m;
      std::unique_lock lock(m);
      std::condition_variable_any cv;
      cv.wait_until(lock, wd, deadline, [] { return false; });
      if (!wd.stop_requested()) {
        budget_spent = true;
        stop.request_stop();
      }
    });
  };

  run.status = "running";
  store_.update_run(run);
  auto started = progress_event(OptimizeEvent::Kind::RunStarted);
  started.message = std::string(run.rounds_done > 0 || !candidates_.empty() ? "resuming" : "starting") + " run " +
                    std::to_string(run.id) + " (" + proposer_.origin() + ")";
  emit(started);
  try {
    verify_pending(run, stop.get_token());
    save_progress(run);
    start_budget();
    result.stop_reason = run_rounds(run, stop.get_token());
    if (stop.stop_requested()) result.stop_reason = budget_spent ? "budget" : "cancelled";
    if (watchdog) watchdog->request_stop();
    finalize(result, external);
    if (!result.best && external.stop_requested()) keep_unconfirmed(result);
    run.status = external.stop_requested() ? "interrupted" : "finished";
  } catch (const std::exception& e) {
    if (watchdog) watchdog->request_stop();
    run.status = "failed";
    run.error = e.what();
    result.stop_reason = "error";
    result.error = e.what();
    if (const auto* v = dynamic_cast<const VerifyError*>(&e); v && !v->detail().empty())
      result.error += "\n" + v->detail();
  }
  try {
    save_progress(run);
  } catch (const std::exception& e) {
    if (result.error.empty()) throw;  // the run itself went well: the store's failure is the news
    result.error += std::string("\n(and saving the run failed: ") + e.what() + ")";
  }
  fill_result(run, result);
  auto done = progress_event(OptimizeEvent::Kind::Finished);
  done.message = run.status + " (" + result.stop_reason + ")";
  emit(done);
  return result;
}

void Optimizer::profile_best(std::stop_token stop) {
  SearchState state{&candidates_, std::nullopt};
  int taken = 0;
  for (const auto* ranked : state.ranked_correct()) {
    if (taken++ >= options_.profile_parents || stop.stop_requested()) break;
    if (std::find(profiled_.begin(), profiled_.end(), ranked->id) != profiled_.end()) continue;
    profiled_.push_back(ranked->id);
    if (ranked->verdict && ranked->verdict->profile) continue;
    std::optional<protocol::ProfileReport> profile;
    try {
      profile = verifier_.profile(VerifyRequest{ranked->source, flags_of(*ranked), false}, stop);
    } catch (const VerifyError&) {
      return;  // cancelled: the round loop sees the stop
    }
    auto e = progress_event(OptimizeEvent::Kind::Note);
    e.candidate_id = ranked->id;
    if (!profile) {
      e.message = "candidate " + std::to_string(ranked->id) + " could not be profiled; prompts go without counters";
      emit(e);
      continue;
    }
    CandidateRecord& c = *std::find_if(candidates_.begin(), candidates_.end(), [&](const auto& x) { return x.id == ranked->id; });
    {
      std::lock_guard lock(state_mutex_);
      if (c.verdict) c.verdict->profile = std::move(*profile);
    }
    CandidateOutcome o{c.status, c.reason, c.verdict, c.p50_us, c.speedup_eager, c.speedup_compile, c.check_seconds};
    store_.record_outcome(c.id, o);
    e.message = "profiled candidate " + std::to_string(c.id) + " for the next prompts";
    emit(e);
  }
}

void Optimizer::fill_measurement(OptimizeEvent& event, const CandidateRecord& c) const {
  event.tried = tried_text(c);
  if (c.status != "correct") return;
  if (!c.p50_us) {  // correct, but the judge withheld its time on a busy machine: say so, not just "correct"
    std::string why = "its verdict has no time";
    if (c.verdict)
      for (const auto& flag : c.verdict->flags)
        if (flag.id == "timing_withheld") why = "the machine was busy (flag timing_withheld: " + flag.message + ")";
    event.message += (event.message.empty() ? "correct" : "") + std::string(", but no time: ") + why;
    return;
  }
  event.p50_us = c.p50_us;
  event.speedup_eager = c.speedup_eager;
  event.speedup_eager_range = eager_range_of(c.verdict);
  event.speedup_compile = c.speedup_compile;
  std::lock_guard lock(state_mutex_);
  if (const auto* b = baseline(); b && b->id != c.id)
    over_original(original_time(b), time_of(c.verdict), event.speedup_vs_kernel, event.speedup_vs_kernel_range);
}

void Optimizer::keep_unconfirmed(OptimizeResult& result) const {
  std::lock_guard lock(state_mutex_);
  const std::optional<protocol::TimeSummary> original = original_time(baseline());
  const double base_p50 = original ? original->p50_us : 0.0;
  SearchState state{&candidates_, std::nullopt};
  for (const auto* c : state.ranked_correct()) {
    if (c->origin == "baseline") continue;
    if (base_p50 > 0 && *c->p50_us >= base_p50) return;
    result.unconfirmed = summary_of(*c);
    over_original(original, time_of(c->verdict), result.unconfirmed_vs_kernel, result.unconfirmed_vs_kernel_range);
    return;
  }
}

std::optional<protocol::TimeSummary> Optimizer::original_time_to_beat(std::stop_token external) {
  const CandidateRecord* base = baseline();
  const std::optional<protocol::TimeSummary> first = original_time(base);
  if (!first) return std::nullopt;
  const double p50 = first->p50_us;
  const double spread = first->spread();
  if (spread <= protocol::kNoisySpread || external.stop_requested()) return first;
  // Timed in a busy moment, the original would flatter every candidate measured against it.
  auto e = progress_event(OptimizeEvent::Kind::Note);
  e.candidate_id = base->id;
  char what[160];
  std::snprintf(what, sizeof what, "the original kernel's time was noisy (%.0f%% spread, p50 %.1f µs): timing it again",
                100 * spread, p50);
  e.message = what;
  emit(e);
  protocol::Verdict again;
  try {
    again = verifier_.verify(VerifyRequest{base->source, flags_of(*base), true}, external);
  } catch (const VerifyError& err) {
    if (err.kind() == VerifyError::Kind::Cancelled) return first;
    throw;
  }
  const auto retimed = again.status == protocol::Status::Correct ? time_of(again) : std::nullopt;
  // The lower of the two: a winner has to beat the original at its best.
  const protocol::TimeSummary beat = retimed && retimed->p50_us > 0 && retimed->p50_us < p50 ? *retimed : *first;
  std::snprintf(what, sizeof what, "the original kernel timed again: %s µs; a winner must beat %.1f µs",
                retimed ? protocol::format_number(retimed->p50_us).c_str() : "no time", beat.p50_us);
  e.message = what;
  emit(e);
  return beat;
}

void Optimizer::finalize(OptimizeResult& result, std::stop_token external) {
  // The original's time, when it is correct and timed; its median the one to beat (0: none).
  const std::optional<protocol::TimeSummary> original = original_time_to_beat(external);
  const double base_p50 = original ? original->p50_us : 0.0;
  int tries = 0;
  while (tries < options_.max_rechecks && !external.stop_requested()) {
    SearchState state{&candidates_, std::nullopt};
    auto ranked = state.ranked_correct();
    // Only a candidate faster than the original kernel (or any correct one, when the original
    // is not correct) can win; the original itself is never "a proposal".
    auto it = std::find_if(ranked.begin(), ranked.end(), [](const auto* c) { return c->origin != "baseline"; });
    if (it == ranked.end()) return;
    CandidateRecord& c = *std::find_if(candidates_.begin(), candidates_.end(), [&](const auto& x) { return x.id == (*it)->id; });
    if (base_p50 > 0 && *c.p50_us >= base_p50) return;
    ++tries;
    auto e = progress_event(OptimizeEvent::Kind::Recheck);
    e.candidate_id = c.id;
    e.message = "re-verifying candidate " + std::to_string(c.id) + " on fresh seeds";
    emit(e);
    protocol::Verdict verdict;
    try {
      verdict = verifier_.verify(VerifyRequest{c.source, flags_of(c), true}, external);
    } catch (const VerifyError& err) {
      if (err.kind() == VerifyError::Kind::Cancelled) return;
      throw;
    }
    const bool correct = verdict.status == protocol::Status::Correct;
    const std::optional<double> p50 = p50_of(verdict);
    bool passed = correct && p50 && (base_p50 <= 0 || *p50 < base_p50);
    store_.record_recheck(c.id, passed, verdict);
    {
      std::lock_guard lock(state_mutex_);
      c.recheck_passed = passed;
    }
    auto r = progress_event(OptimizeEvent::Kind::Recheck);
    r.candidate_id = c.id;
    r.status = std::string(protocol::to_string(verdict.status));
    // Both times, so a search-time number that did not reproduce is visible, not hidden behind "confirmed".
    char times[96] = "";
    if (p50 && c.p50_us) std::snprintf(times, sizeof times, " (%.1f µs on fresh seeds; %.1f µs in the search)", *p50, *c.p50_us);
    const char* slower = p50 ? "not faster than the original on re-verification"
                             : "correct on re-verification, but no time: the machine was busy (flag timing_withheld)";
    r.message = passed ? std::string("confirmed") + times
                       : (correct ? slower + std::string(times) : verdict.reason.value_or(""));
    emit(r);
    if (!passed) continue;
    result.best = summary_of(c);
    result.best_p50_us = p50;
    if (verdict.speedup) {
      result.speedup_eager = verdict.speedup->eager;
      result.speedup_compile = verdict.speedup->compile;
    }
    over_original(original, time_of(verdict), result.speedup_vs_kernel, result.speedup_vs_kernel_range);
    result.best_recheck = std::move(verdict);
    result.diff = unified_diff(target_.base_source, c.source, target_.kernel_path.filename().string());
    return;
  }
}

}  // namespace hone
