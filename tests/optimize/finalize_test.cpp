// tests/optimize/finalize_test.cpp: the loop's end with a scripted verifier and proposer over a
// real SQLite store: an original kernel whose first timing was noisy (a busy moment makes it look
// slow) is timed again before the winner's speedup over it is computed, so a noisy start never
// inflates "× faster than the original"; a quiet one is not timed twice.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>

#include <gtest/gtest.h>

#include "optimize/optimizer.h"

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

TEST_F(Finalize, ANoisyOriginalThatTimesSlowerAgainKeepsItsLowerFirstTime) {
  ScriptedVerifier verifier({{"slow", {{100.0, 0.8}, {140.0, 0.6}}}, {"fast", {{50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_TRUE(result.best && result.speedup_vs_kernel);
  EXPECT_DOUBLE_EQ(*result.speedup_vs_kernel, 100.0 / 50.0);
  EXPECT_EQ(verifier.calls("slow"), 2) << "timed again, the slower second time is not taken";
}

TEST_F(Finalize, AQuietOriginalIsTimedOnce) {
  ScriptedVerifier verifier({{"slow", {{100.0, 0.05}}}, {"fast", {{50.0, 0.05}}}});
  OptimizeResult result = run(verifier);
  ASSERT_TRUE(result.best && result.speedup_vs_kernel);
  EXPECT_DOUBLE_EQ(*result.speedup_vs_kernel, 2.0);
  EXPECT_EQ(verifier.calls("slow"), 1);
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
