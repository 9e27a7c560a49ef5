// tests/optimize/tuner_test.cpp: `// hone: tune` parsing and rewriting, the tuner's search order
// (coordinate descent, then exhaustive completion), and the unified diff of a configuration.
#include <gtest/gtest.h>

#include <set>

#include "optimize/tuner.h"
#include "support/unified_diff.h"
#include "support/hash.h"

namespace {

const char* kSource =
    "#include \"hone.h\"\n"
    "#define TILE 8  // hone: tune TILE=8,16,32\n"
    "// hone: tune ROWS=1,2,4\n"
    "\n"
    "constexpr int ROWS = 1;\n"
    "// hone: tune UNROLL=1,4\n"
    "#pragma unroll 2\n"
    "__global__ void __launch_bounds__(256) k() {}  // hone: tune LB=128,256,512\n"
    "void forward(hone::In<float> x, hone::Out<float> o, hone::Stream s) {}\n";

TEST(TuneKnobs, FindsEveryKindOfKnobWithItsCurrentValueFirst) {
  auto p = hone::parse_tune_knobs(kSource);
  EXPECT_TRUE(p.errors.empty()) << p.errors.front();
  ASSERT_EQ(p.knobs.size(), 4u);
  EXPECT_EQ(p.knobs[0].name, "TILE");
  EXPECT_EQ(p.knobs[0].kind, hone::TuneKnob::Kind::Define);
  EXPECT_EQ(p.knobs[0].line, 2);
  EXPECT_EQ(p.knobs[0].values, (std::vector<std::string>{"8", "16", "32"}));
  EXPECT_EQ(p.knobs[1].name, "ROWS");
  EXPECT_EQ(p.knobs[1].kind, hone::TuneKnob::Kind::Constexpr);
  EXPECT_EQ(p.knobs[1].line, 5);
  EXPECT_EQ(p.knobs[1].annotation_line, 3);
  EXPECT_EQ(p.knobs[2].kind, hone::TuneKnob::Kind::PragmaUnroll);
  EXPECT_EQ(p.knobs[2].values, (std::vector<std::string>{"2", "1", "4"}));  // current first
  EXPECT_EQ(p.knobs[3].kind, hone::TuneKnob::Kind::LaunchBounds);
  EXPECT_EQ(p.knobs[3].current, "256");
}

TEST(TuneKnobs, RewritesOnlyTheValues) {
  auto p = hone::parse_tune_knobs(kSource);
  auto out = hone::apply_knob_values(kSource, p.knobs, {{"TILE", "32"}, {"ROWS", "4"}, {"UNROLL", "4"}, {"LB", "512"}});
  EXPECT_NE(out.find("#define TILE 32  // hone: tune TILE=8,16,32\n"), std::string::npos) << out;
  EXPECT_NE(out.find("constexpr int ROWS = 4;\n"), std::string::npos) << out;
  EXPECT_NE(out.find("#pragma unroll 4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("__launch_bounds__(512) k()"), std::string::npos) << out;
  EXPECT_EQ(out.size(), std::string(kSource).size() + 1);  // only TILE 8 -> 32 is one character longer
  EXPECT_THROW(hone::apply_knob_values(kSource, p.knobs, {{"NOPE", "1"}}), std::invalid_argument);
}

TEST(TuneKnobs, UnusableAnnotationsAreReportedWithTheirLine) {
  auto p = hone::parse_tune_knobs(
      "int x = 0;  // hone: tune X=1,2\n"
      "#define A 1 // hone: tune B=1,2\n"
      "// hone: tune C\n"
      "#define D 1 // hone: tune D=\n");
  EXPECT_TRUE(p.knobs.empty());
  ASSERT_EQ(p.errors.size(), 4u);
  EXPECT_NE(p.errors[0].find("line 1:"), std::string::npos) << p.errors[0];
  EXPECT_NE(p.errors[1].find("names must match"), std::string::npos) << p.errors[1];
  EXPECT_NE(p.errors[2].find("line 3:"), std::string::npos) << p.errors[2];
}

TEST(TuneKnobs, TheRealTunerExamplesParse) {
  for (const char* file : {"tune_transpose.cpp", "tune_transpose.cu"}) {
    auto path = std::filesystem::path(HONE_TASKS_DIR) / file;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not there yet";
    auto p = hone::parse_tune_knobs(hone::read_file(path));
    EXPECT_TRUE(p.errors.empty()) << file << ": " << (p.errors.empty() ? "" : p.errors.front());
    EXPECT_FALSE(p.knobs.empty()) << file;
  }
}

// A run's state with candidates at given configurations, timed as given (nullopt: incorrect).
struct FakeRun {
  std::vector<hone::CandidateRecord> candidates;
  void add(const nlohmann::json& config, std::optional<double> p50, const std::string& origin = "tuner") {
    hone::CandidateRecord c;
    c.id = static_cast<std::int64_t>(candidates.size()) + 1;
    c.origin = origin;
    c.config = config;
    c.status = p50 ? "correct" : "incorrect";
    c.p50_us = p50;
    candidates.push_back(c);
  }
  hone::SearchState state() const { return {&candidates, candidates.empty() ? std::nullopt : std::optional<std::int64_t>(1)}; }
};

TEST(TunerProposer, DescendsAroundTheBestThenFinishesASmallSpaceExhaustively) {
  auto space = hone::tuner_space(kSource, "cuda", true);
  EXPECT_EQ(space.size(), 3u * 3u * 3u * 3u * 3u);  // TILE, ROWS, UNROLL (2 + current), LB, flag sets
  hone::TunerProposer tuner(kSource, space);
  FakeRun run;
  run.add(tuner.baseline_config(), 100.0, "baseline");
  auto r1 = tuner.plan_round(run.state(), 1, 4);
  ASSERT_EQ(r1.size(), 4u);
  std::set<std::string> varied;
  for (const auto& r : r1) {
    int changed = 0;
    for (const auto& [k, v] : r.config["knobs"].items())
      if (v != tuner.baseline_config()["knobs"][k]) ++changed, varied.insert(k);
    if (r.config["flags"] != tuner.baseline_config()["flags"]) ++changed, varied.insert("flags");
    EXPECT_EQ(changed, 1) << r.config.dump();  // neighbours differ in one dimension
    EXPECT_EQ(*r.source, tuner.source_for(r.config));
    EXPECT_EQ(r.parent, &run.candidates[0]);
  }
  EXPECT_EQ(varied.size(), 4u) << "a round spreads over dimensions";
  // The second round centres on the best verified configuration.
  for (std::size_t i = 0; i < r1.size(); ++i) run.add(r1[i].config, i == 2 ? std::optional<double>(50.0) : std::nullopt);
  auto r2 = tuner.plan_round(run.state(), 2, 100);
  for (const auto& r : r2) {
    int changed = 0;
    for (const auto& [k, v] : r.config["knobs"].items()) changed += v != r1[2].config["knobs"][k];
    changed += r.config["flags"] != r1[2].config["flags"];
    EXPECT_EQ(changed, 1) << r.config.dump();
    for (const auto& c : run.candidates) EXPECT_NE(c.config, r.config) << "never proposes a tried configuration";
  }
  // Once the neighbourhood is exhausted the rest of the (small) space follows, then nothing.
  std::size_t total = run.candidates.size();
  for (int round = 3; round < 200; ++round) {
    auto r = tuner.plan_round(run.state(), round, 16);
    if (r.empty()) break;
    for (const auto& req : r) run.add(req.config, std::nullopt);
    total += r.size();
  }
  EXPECT_EQ(total, space.size());
}

TEST(TunerProposer, NoKnobsStillTriesFlagSets) {
  auto space = hone::tuner_space("void forward(hone::In<float> x, hone::Out<float> o, hone::Stream) {}", "cpp", true);
  EXPECT_TRUE(space.knobs.empty());
  hone::TunerProposer tuner("void forward() {}", space);
  FakeRun run;
  run.add(tuner.baseline_config(), 10.0, "baseline");
  auto r = tuner.plan_round(run.state(), 1, 100);
  EXPECT_EQ(r.size(), hone::default_flag_sets("cpp").size() - 1);
  auto none = hone::tuner_space("void forward() {}", "cpp", false);
  hone::TunerProposer fixed("void forward() {}", none);
  FakeRun run2;
  run2.add(fixed.baseline_config(), 10.0, "baseline");
  EXPECT_TRUE(fixed.plan_round(run2.state(), 1, 4).empty());
}

TEST(TunerProposer, WritesEachConfigurationsFlagsIntoItsSource) {
  auto space = hone::tuner_space(kSource, "cuda", true);
  std::vector<std::vector<std::string>> written;
  hone::TunerProposer tuner(kSource, space, [&](std::string_view source, const std::vector<std::string>& flags) {
    written.push_back(flags);
    std::string line = "// flags:";
    for (const auto& f : flags) line += " " + f;
    return line + "\n" + std::string(source);
  });
  FakeRun run;
  run.add(tuner.baseline_config(), 100.0, "baseline");
  EXPECT_EQ(tuner.source_for(tuner.baseline_config()), kSource);  // no flags: the text as written
  EXPECT_TRUE(written.empty());
  bool saw_flags = false;
  for (const auto& r : tuner.plan_round(run.state(), 1, 16)) {
    const auto flags = r.config["flags"].get<std::vector<std::string>>();
    if (flags.empty()) continue;
    saw_flags = true;
    EXPECT_EQ(r.source->rfind("// flags: " + flags.front(), 0), 0u) << *r.source;
    EXPECT_EQ(r.source->substr(r.source->find('\n') + 1),
              hone::TunerProposer(kSource, space).source_for(r.config));  // the knobs as without a writer
  }
  EXPECT_TRUE(saw_flags);
}

TEST(UnifiedDiff, ShowsTheChangedKnobWithContext) {
  auto p = hone::parse_tune_knobs(kSource);
  auto after = hone::apply_knob_values(kSource, p.knobs, {{"ROWS", "4"}});
  auto d = hone::unified_diff(kSource, after, "k.cu");
  EXPECT_EQ(d.rfind("--- a/k.cu\n+++ b/k.cu\n@@ -", 0), 0u) << d;
  EXPECT_NE(d.find("-constexpr int ROWS = 1;\n+constexpr int ROWS = 4;\n"), std::string::npos) << d;
  EXPECT_NE(d.find(" // hone: tune ROWS=1,2,4\n"), std::string::npos) << d;
  EXPECT_EQ(hone::unified_diff(kSource, kSource, "k.cu"), "");
}

}  // namespace
