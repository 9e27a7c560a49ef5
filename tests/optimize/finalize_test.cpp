// tests/optimize/finalize_test.cpp: the loop's end with a scripted verifier and proposer over a
// real SQLite store: an original kernel whose first timing was noisy (a busy moment makes it look
// slow) is timed again before the winner's speedup over it is computed, so a noisy start never
// inflates "× faster than the original"; a quiet one is not timed twice. The speedup over the
// original is a point only when both times are quiet, else a range from both sides' p10..p90
// (issue 14), in the result, the run's summary and the candidates' events.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>

#include <gtest/gtest.h>

#include "optimize/optimizer.h"
#include "optimize/run_export.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// Answers every source with a correct verdict whose times follow a plan: per source, the (p50,
// spread) of its first, second, ... verification (the last one repeats); a negative p50 is a
// time withheld on a busy machine (correct, no timing, flag timing_withheld).
class ScriptedVerifier : public CandidateVerifier {
 public:
  explicit ScriptedVerifier(std::map<std::string, std::vector<std::pair<double, double>>> plan) : plan_(std::move(plan)) {}

  protocol::Verdict verify(const VerifyRequest& request, std::stop_token) override {
    std::lock_guard lock(mutex_);
    const auto& times = plan_.at(request.source);
    const std::size_t k = static_cast<std::size_t>(calls_[request.source]++);
    const auto [p50, spread] = times[std::min(k, times.size() - 1)];
    protocol::Verdict v;
    v.status = protocol::Status::Correct;
    if (p50 < 0) {
      v.flags.push_back({"timing_withheld", "call time withheld: ... check again on a quieter machine"});
      return v;
    }
    protocol::Timing t;
    t.p50_us = p50;
    t.p10_us = p50 * (1 - spread / 2);
    t.p90_us = p50 * (1 + spread / 2);
    t.reps = 100;
    t.method = "host_clock";
    v.timing = t;
    // Over an eager reference of a quiet 200 µs: a point when this time is quiet, else the range.
    protocol::Speedup sp;
    if (spread > protocol::kNoisySpread) sp.eager_range = protocol::SpeedupRange{200.0 / t.p90_us, 200.0 / t.p10_us};
    else sp.eager = 200.0 / p50;
    v.speedup = sp;
    return v;
  }

  int calls(const std::string& source) {
    std::lock_guard lock(mutex_);
    return calls_[source];
  }

 private:
  std::map<std::string, std::vector<std::pair<double, double>>> plan_;
  std::map<std::string, int> calls_;
  std::mutex mutex_;
};

// One round with one candidate, "fast".
class OneCandidate : public Proposer {
 public:
  std::string origin() const override { return "llm"; }
  std::vector<ProposalRequest> plan_round(const SearchState&, int round, int) override {
    if (round > 1) return {};
    ProposalRequest r;
    r.round = round;
    return {r};
  }
  Proposal propose(const ProposalRequest&, std::stop_token) override {
    Proposal p;
    p.source = "fast";
    return p;
  }
};

class Finalize : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hone-finalize-" + std::to_string(::getpid()) + "-" + testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    target_.kernel_path = dir_ / "k.cpp";
    target_.base_source = "slow";
    target_.language = "cpp";
    target_.task_path = dir_ / "k.py";
    target_.task_name = "k";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One run of OneCandidate against `verifier`; its events land in events_.
  OptimizeResult run(ScriptedVerifier& verifier) {
    RunStore store(dir_ / "hone.db");
    OneCandidate proposer;
    OptimizeOptions options;
    options.samples = 1;
    options.rounds = 1;
    Optimizer optimizer(store, verifier, proposer, target_, options);
    std::stop_source stop;
    return optimizer.run(nlohmann::json::object(), stop.get_token(), [this](const OptimizeEvent& e) { events_.push_back(e); });
  }

  fs::path dir_;
  OptimizeTarget target_;
  std::vector<OptimizeEvent> events_;

  // The last verified event of a correct candidate other than the original (nullptr: none).
  const OptimizeEvent* verified_candidate() const {
    const OptimizeEvent* found = nullptr;
    for (const auto& e : events_)
      if (e.kind == OptimizeEvent::Kind::Verified && e.tried != "as written" && e.status == "correct") found = &e;
    return found;
  }
};

TEST_F(Finalize, ANoisyOriginalIsTimedAgainAndTheWinnerMustBeatItsLowerTime) {
  // The original first timed at 100 µs with an 80% spread (a busy moment), then at 60 µs quietly.
  ScriptedVerifier verifier({{"slow", {{100.0, 0.8}, {60.0, 0.05}}}, {"fast", {{50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  ASSERT_TRUE(result.best);
  EXPECT_EQ(result.best->source, "fast");
  ASSERT_TRUE(result.speedup_vs_kernel);
  EXPECT_DOUBLE_EQ(*result.speedup_vs_kernel, 60.0 / 50.0) << "not the 2x the noisy first time gave";
  EXPECT_EQ(verifier.calls("slow"), 2);
  bool said = false;
  for (const auto& e : events_) said |= e.message.find("original kernel's time was noisy") != std::string::npos;
  EXPECT_TRUE(said) << "the run says why it timed the original again";
}

TEST_F(Finalize, ANoisyOriginalThatTimesSlowerAgainKeepsItsLowerFirstTimeAndTheSpeedupIsARange) {
  ScriptedVerifier verifier({{"slow", {{100.0, 0.8}, {140.0, 0.6}}}, {"fast", {{50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_TRUE(result.best);
  EXPECT_EQ(verifier.calls("slow"), 2) << "timed again, the slower second time is not taken";
  // The original's first time (100 µs, p10 60, p90 140) stays noisy: no point, the range from both
  // sides' p10..p90 (the winner's re-verification: 50 µs, p10 48.75, p90 51.25).
  EXPECT_FALSE(result.speedup_vs_kernel);
  ASSERT_TRUE(result.speedup_vs_kernel_range);
  EXPECT_NEAR(result.speedup_vs_kernel_range->low, 60.0 / 51.25, 1e-9);
  EXPECT_NEAR(result.speedup_vs_kernel_range->high, 140.0 / 48.75, 1e-9);
  const nlohmann::json speedup = nlohmann::json(result)["best"]["speedup"];
  EXPECT_TRUE(speedup["kernel"].is_null()) << speedup.dump();
  EXPECT_NEAR(speedup["kernel_range"]["low"].get<double>(), 60.0 / 51.25, 1e-9) << speedup.dump();
}

TEST_F(Finalize, AQuietOriginalIsTimedOnce) {
  ScriptedVerifier verifier({{"slow", {{100.0, 0.05}}}, {"fast", {{50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_TRUE(result.best && result.speedup_vs_kernel);
  EXPECT_DOUBLE_EQ(*result.speedup_vs_kernel, 2.0);
  EXPECT_FALSE(result.speedup_vs_kernel_range) << "both quiet: a point, no range";
  EXPECT_EQ(verifier.calls("slow"), 1);
  // The verified candidate's event has the point too.
  const OptimizeEvent* verified = verified_candidate();
  ASSERT_NE(verified, nullptr);
  ASSERT_TRUE(verified->speedup_vs_kernel);
  EXPECT_DOUBLE_EQ(*verified->speedup_vs_kernel, 2.0);
  EXPECT_FALSE(verified->speedup_vs_kernel_range);
}

TEST_F(Finalize, AWinnerWhoseRecheckIsNoisyHasARangeOverTheOriginalNotAPoint) {
  // The search's 50 µs was quiet; on fresh seeds 50 µs with a 40% spread (p10 40, p90 60).
  ScriptedVerifier verifier({{"slow", {{100.0, 0.1}}}, {"fast", {{50.0, 0.05}, {50.0, 0.4}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  ASSERT_TRUE(result.best);
  EXPECT_FALSE(result.speedup_vs_kernel) << "a noisy time is never a point";
  ASSERT_TRUE(result.speedup_vs_kernel_range);
  // The original's p10 (95) over the winner's p90 (60) .. its p90 (105) over the winner's p10 (40).
  EXPECT_NEAR(result.speedup_vs_kernel_range->low, 95.0 / 60.0, 1e-9);
  EXPECT_NEAR(result.speedup_vs_kernel_range->high, 105.0 / 40.0, 1e-9);
  RunStore store(dir_ / "hone.db");
  const auto summary = store.run(result.run_id)->summary;
  EXPECT_TRUE(summary["winner_speedup_vs_kernel"].is_null()) << summary.dump();
  EXPECT_NEAR(summary["winner_speedup_vs_kernel_range"]["high"].get<double>(), 105.0 / 40.0, 1e-9) << summary.dump();
  // Its speedup over eager likewise, kept for `hone runs`: the range, no point.
  const protocol::RunListing listing = run_listing(*store.run(result.run_id));
  EXPECT_FALSE(listing.winner_speedup_eager);
  ASSERT_TRUE(listing.winner_speedup_eager_range) << summary.dump();
  EXPECT_NEAR(listing.winner_speedup_eager_range->low, 200.0 / 60.0, 1e-9);
  EXPECT_NEAR(listing.winner_speedup_eager_range->high, 200.0 / 40.0, 1e-9);
}

TEST_F(Finalize, ANoisyOriginalGivesEveryCandidateARangeNotAPoint) {
  // The original noisy both times (its retimed 90 µs the lower: p10 63, p90 117); the candidate quiet.
  ScriptedVerifier verifier({{"slow", {{100.0, 0.6}, {90.0, 0.6}}}, {"fast", {{50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  ASSERT_TRUE(result.best);
  EXPECT_FALSE(result.speedup_vs_kernel);
  ASSERT_TRUE(result.speedup_vs_kernel_range);
  EXPECT_NEAR(result.speedup_vs_kernel_range->low, 63.0 / 51.25, 1e-9);
  EXPECT_NEAR(result.speedup_vs_kernel_range->high, 117.0 / 48.75, 1e-9);
  // In the search, against the first time (p10 70, p90 130): the event and the best so far.
  const OptimizeEvent* verified = verified_candidate();
  ASSERT_NE(verified, nullptr);
  EXPECT_FALSE(verified->speedup_vs_kernel || verified->best_vs_kernel);
  ASSERT_TRUE(verified->speedup_vs_kernel_range && verified->best_vs_kernel_range);
  EXPECT_NEAR(verified->speedup_vs_kernel_range->low, 70.0 / 51.25, 1e-9);
  EXPECT_NEAR(verified->speedup_vs_kernel_range->high, 130.0 / 48.75, 1e-9);
  EXPECT_NEAR(verified->best_vs_kernel_range->low, 70.0 / 51.25, 1e-9);
}

TEST_F(Finalize, ACandidateVerifiedWithANoisyTimeHasARangeInItsEvent) {
  // The candidate's own time noisy in the search (p10 35, p90 65), the original quiet (p10 97.5,
  // p90 102.5); its re-verification quiet.
  ScriptedVerifier verifier({{"slow", {{100.0, 0.05}}}, {"fast", {{50.0, 0.6}, {50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  const OptimizeEvent* verified = verified_candidate();
  ASSERT_NE(verified, nullptr);
  ASSERT_TRUE(verified->p50_us);
  EXPECT_FALSE(verified->speedup_vs_kernel) << "a noisy time is never a point";
  ASSERT_TRUE(verified->speedup_vs_kernel_range);
  EXPECT_NEAR(verified->speedup_vs_kernel_range->low, 97.5 / 65.0, 1e-9);
  EXPECT_NEAR(verified->speedup_vs_kernel_range->high, 102.5 / 35.0, 1e-9);
  // Re-verified quietly, the winner's speedup is a point again.
  ASSERT_TRUE(result.best && result.speedup_vs_kernel);
  EXPECT_DOUBLE_EQ(*result.speedup_vs_kernel, 2.0);
  EXPECT_FALSE(result.speedup_vs_kernel_range);
}

TEST_F(Finalize, ACandidateThatDoesNotBeatTheRetimedOriginalDoesNotWin) {
  // 70 µs beats the noisy 100 but not the original's quiet 60: no proposal.
  ScriptedVerifier verifier({{"slow", {{100.0, 0.8}, {60.0, 0.05}}}, {"fast", {{70.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_FALSE(result.best);
}

TEST_F(Finalize, ACandidateWhoseRecheckHasNoTimeDoesNotWinAndTheRunSaysWhy) {
  // 50 µs in the search; on re-verification correct but its time withheld (a busy machine).
  ScriptedVerifier verifier({{"slow", {{100.0, 0.05}}}, {"fast", {{50.0, 0.05}, {-1.0, 0.0}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_FALSE(result.best) << "a winner needs a time on fresh seeds";
  EXPECT_EQ(verifier.calls("fast"), 2);
  bool said = false;
  for (const auto& e : events_)
    said |= e.kind == OptimizeEvent::Kind::Recheck && e.message.find("no time: the machine was busy") != std::string::npos;
  EXPECT_TRUE(said) << "not 'not faster than the original'";
}

TEST_F(Finalize, ACandidateVerifiedWithoutATimeSaysWhyInItsEvent) {
  // The candidate correct in the search but its time withheld (a busy machine): its verified event
  // says so instead of a bare "correct" with no time beside it; it is no winner.
  ScriptedVerifier verifier({{"slow", {{100.0, 0.05}}}, {"fast", {{-1.0, 0.0}}}});
  OptimizeResult result = run(verifier);
  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_FALSE(result.best);
  const OptimizeEvent* verified = nullptr;
  for (const auto& e : events_)
    if (e.kind == OptimizeEvent::Kind::Verified && e.status == "correct" && !e.p50_us) verified = &e;
  ASSERT_NE(verified, nullptr) << "no verified event for the candidate without a time";
  EXPECT_NE(verified->message.find("correct, but no time: the machine was busy (flag timing_withheld: call time "
                                   "withheld"),
            std::string::npos)
      << verified->message;
  EXPECT_FALSE(verified->speedup_eager || verified->speedup_eager_range || verified->speedup_vs_kernel);
}

}  // namespace
}  // namespace hone
