// tests/optimize/loop_test.cpp: Engine::optimize end to end on the CPU: the built-in tuner improves
// the deliberately badly-tuned example; a scripted R1-style model (a real local HTTP/SSE server)
// proposes good, broken, wrong, cheating and code-less kernels through 429s and a dropped stream,
// and only a verified, re-verified kernel wins; an interrupted run resumes without losing or
// repeating verified candidates; the key never reaches the store or a candidate.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "fake_llm_server.h"
#include "loop_fixture.h"
#include "optimize/run_export.h"
#include "store/run_store.h"
#include "support/hash.h"

namespace hone {
namespace {

using nlohmann::json;
using protocol::OptimizeEvent;
using namespace std::chrono_literals;

// The speedup over the original a threshold is checked against: the point, else the range's high
// end (issue 14: a time left noisy by CI's busy cores gives a range, never a point); 0: neither.
double vs_kernel(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range) {
  return point ? *point : range ? range->high : 0.0;
}

const char* kSlowRelu =
    "// relu, slow on purpose: the same pass eight times\n"
    "#include \"hone.h\"\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
    "  const float* in = x.data();\n"
    "  float* o = out.data();\n"
    "  const int64_t n = x.numel();\n"
    "  volatile int passes = 8;\n"
    "  for (int pass = 0; pass < passes; ++pass)\n"
    "    for (int64_t i = 0; i < n; ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;\n"
    "}\n";

std::string fast_relu(const std::string& marker) {
  return "// " + marker +
         "\n#include \"hone.h\"\n"
         "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
         "  const float* __restrict in = x.data();\n"
         "  float* __restrict o = out.data();\n"
         "  const int64_t n = x.numel();\n"
         "  for (int64_t i = 0; i < n; ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;\n"
         "}\n";
}

std::string fenced(const std::string& code) { return "Here is the kernel:\n\n```cpp\n" + code + "```\n"; }

// A candidate that skips the work (writes one element) and tries to steal the API key (to a file,
// and to stderr, which verdicts keep as evidence).
std::string cheating_relu(const std::filesystem::path& leak) {
  return "// cheat\n#include <cstdio>\n#include <cstdlib>\n#include \"hone.h\"\n"
         "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
         "  const char* k = std::getenv(\"HONE_LLM_API_KEY\");\n"
         "  std::fputs(k ? k : \"no key\", stderr);\n"
         "  if (std::FILE* f = std::fopen(\"" + leak.string() + "\", \"w\")) {\n"
         "    std::fputs(k ? k : \"no key\", f);\n"
         "    std::fclose(f);\n"
         "  }\n"
         "  out.data()[0] = x.data()[0] > 0.f ? x.data()[0] : 0.f;\n"
         "}\n";
}

const char* kWrongRelu =
    "#include <cmath>\n#include \"hone.h\"\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
    "  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = std::fabs(x.data()[i]);\n"
    "}\n";

const char* kBrokenRelu =
    "#include \"hone.h\"\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
    "  int missing_semicolon = 1\n"
    "}\n";

class OptimizeLoop : public testing::Workspace {};

TEST_F(OptimizeLoop, TheTunerImprovesTheBadlyTunedCpuExample) {
  auto kernel = copy_task_file("tune_transpose.cpp");
  copy_task_file("tune_transpose.py");
  Engine engine(engine_options());
  OptimizeRequest req;
  req.kernel = kernel;
  req.tune_flags = false;
  req.options.samples = 3;
  req.options.rounds = 6;
  req.budget = 600s;
  std::vector<OptimizeEvent> events;
  auto result = engine.optimize(req, {}, [&](const OptimizeEvent& e) { events.push_back(e); });
  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_EQ(result.stop_reason, "exhausted");
  EXPECT_EQ(result.candidates, 5);  // BLOCK in {4, 8, 16, 32, 64}: every value tried once
  ASSERT_TRUE(result.baseline);
  EXPECT_EQ(result.baseline->status, "correct") << result.baseline->reason;
  ASSERT_TRUE(result.best) << json(result).dump(2);
  ASSERT_TRUE(result.speedup_vs_kernel || result.speedup_vs_kernel_range) << json(result).dump(2);
  // BLOCK = 1 walks the transpose's columns one element a row; every other BLOCK is well over
  // 1.3x faster on a quiet machine, but CI's two cores shared with other work have measured 1.2x:
  // the test asks for a clear gain that load cannot take away, re-verified, not for its size.
  EXPECT_GT(vs_kernel(result.speedup_vs_kernel, result.speedup_vs_kernel_range), 1.1) << json(result).dump(2);
  EXPECT_NE(result.diff.find("-constexpr int BLOCK = 1;"), std::string::npos) << result.diff;
  EXPECT_NE(result.diff.find("+constexpr int BLOCK = "), std::string::npos) << result.diff;
  EXPECT_EQ(result.best->origin, "tuner");

  RunStore store(engine.store_path());
  auto run = store.run(result.run_id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "finished");
  EXPECT_EQ(run->best_candidate, result.best->id);
  auto cands = store.candidates(result.run_id);
  ASSERT_EQ(cands.size(), 6u);
  std::set<std::string> configs;
  for (const auto& c : cands) configs.insert(c.config.dump());
  EXPECT_EQ(configs.size(), 6u) << "no configuration verified twice";
  auto winner = store.candidate(result.best->id);
  EXPECT_EQ(winner->recheck_passed, true);
  bool saw_round = false, saw_recheck = false;
  for (const auto& e : events) {
    saw_round |= e.kind == OptimizeEvent::Kind::RoundStarted;
    saw_recheck |= e.kind == OptimizeEvent::Kind::Recheck;
  }
  EXPECT_TRUE(saw_round && saw_recheck);
}

TEST_F(OptimizeLoop, AScriptedModelOnlyWinsWithAVerifiedKernelAndTheKeyStaysHome) {
  auto kernel = write("relu.cpp", kSlowRelu);
  copy_task_file("relu.py");
  auto leak = dir_ / "leaked-key.txt";
  const std::string key = "sk-hone-test-key-8d1f";
  ::setenv("HONE_LLM_API_KEY", key.c_str(), 1);
  hone::testing::FakeLlmServer server(dir_ / "llm");
  auto rule = [](const json& response) { return json{{"times", 1}, {"response", response}}; };
  server.set_script(
      {{"rules",
        {rule({{"status", 429}, {"headers", {{"Retry-After", "1"}}}, {"error", {{"message", "rate limited"}}}}),
         rule({{"reasoning", "Eight passes are redundant; one pass with restrict pointers will vectorise."},
               {"think_inline", true}, {"content", fenced(fast_relu("fast relu v1"))}}),
         rule({{"reasoning", "try"}, {"content", fenced(kBrokenRelu)}}),
         rule({{"reasoning", "skip work"}, {"content", fenced(cheating_relu(leak))}}),
         rule({{"reasoning", "abs is close"}, {"content", fenced(kWrongRelu)}}),
         rule({{"reasoning", "hmm"}, {"content", "I would use SIMD intrinsics here, but I am not sure."}}),
         rule({{"content", fenced(fast_relu("fast relu v2"))}, {"drop_after_chunks", 4}}),
         {{"response", {{"reasoning", "again"}, {"content", fenced(fast_relu("fast relu v2"))}}}}}}});

  Engine engine(engine_options());
  OptimizeRequest req;
  req.kernel = kernel;
  req.options.samples = 1;  // one request a round: the script's order is the rounds' order
  req.options.rounds = 6;
  req.budget = 900s;
  ModelSettings llm;  // the engine reads the key from HONE_LLM_API_KEY
  llm.url = server.base_url();
  llm.model = "deepseek-reasoner";
  llm.price_input_per_mtok = 0.55;
  llm.price_output_per_mtok = 2.19;
  req.model = llm;
  req.hint = "  Try restrict pointers and a single pass.\n";
  auto result = engine.optimize(req);
  ::unsetenv("HONE_LLM_API_KEY");

  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_EQ(result.candidates, 6);
  EXPECT_EQ(result.counts["correct"], 2) << json(result).dump(2);
  EXPECT_EQ(result.counts["compile_error"], 1);
  EXPECT_EQ(result.counts["incorrect"] + result.counts["rejected"], 2);
  EXPECT_EQ(result.counts["no_code"], 1);
  ASSERT_TRUE(result.best) << json(result).dump(2);
  EXPECT_NE(result.best->source.find("fast relu v"), std::string::npos);
  EXPECT_GT(vs_kernel(result.speedup_vs_kernel, result.speedup_vs_kernel_range), 1.5) << json(result).dump(2);
  EXPECT_GT(result.usage.completion_tokens, 0);
  EXPECT_GT(result.usage.cost_usd, 0);

  RunStore store(engine.store_path());
  auto cands = store.candidates(result.run_id);
  ASSERT_EQ(cands.size(), 7u);
  for (const auto& c : cands) {
    if (c.source.find("// cheat") != std::string::npos) {
      EXPECT_NE(c.status, "correct") << "a cheating kernel passed: " << c.reason;
      EXPECT_NE(c.id, result.best->id);
    }
    if (c.source.find("fast relu v1") != std::string::npos) {
      EXPECT_EQ(c.reasoning, "Eight passes are redundant; one pass with restrict pointers will vectorise.");
      EXPECT_EQ(c.reply.find("<think>"), std::string::npos);
      EXPECT_EQ(c.parent_id, cands[0].id);
    }
    if (c.status == "no_code") {
      EXPECT_NE(c.reason.find("no fenced code block"), std::string::npos);
    }
    if (c.status == "compile_error") {
      EXPECT_NE(c.reason.find("relu.cpp:4"), std::string::npos) << c.reason;
    }
  }
  // Round 2 refined the verified kernel of round 1 and its prompt carried the history.
  auto requests = server.requests();
  ASSERT_GE(requests.size(), 8u);  // six candidates + the 429 + the dropped stream
  for (const auto& r : requests) EXPECT_EQ(r["headers"]["Authorization"], "Bearer " + key);
  std::string round3 = requests[3]["body"]["messages"].back()["content"];
  EXPECT_NE(round3.find("fast relu v1"), std::string::npos) << round3;
  EXPECT_NE(round3.find("compile_error"), std::string::npos) << round3;
  EXPECT_NE(round3.find("return torch.relu(x)"), std::string::npos) << round3;
  for (const auto& r : requests) {
    std::string user = r["body"]["messages"].back()["content"];
    EXPECT_NE(user.find("## The user's direction\nTry restrict pointers and a single pass.\n"), std::string::npos) << user;
  }
  EXPECT_EQ(store.run(result.run_id)->config.value("hint", ""), "  Try restrict pointers and a single pass.\n");
  // The key is in no store file and never reached the candidate.
  EXPECT_EQ(store_bytes().find(key), std::string::npos);
  if (std::filesystem::exists(leak)) {
    EXPECT_EQ(read_file(leak).find(key), std::string::npos);
  }
  // The export holds one trajectory per candidate, the answer with its reasoning.
  auto lines = export_run(store, result.run_id);
  ASSERT_EQ(lines.size(), cands.size());
  bool found = false;
  for (const auto& l : lines)
    if (l["candidate_id"] == result.best->id) {
      found = true;
      EXPECT_GT(l["reward"].get<double>(), 1.5);
      EXPECT_EQ(l["messages"].back()["role"], "assistant");
      EXPECT_EQ(l["lineage"][0], cands[0].id);
    }
  EXPECT_TRUE(found);
}

TEST_F(OptimizeLoop, ParallelSamplesOverlapTheirRequestsAndVerifications) {
  auto kernel = write("relu.cpp", kSlowRelu);
  copy_task_file("relu.py");
  hone::testing::FakeLlmServer server(dir_ / "llm");
  server.always({{"reasoning", "one pass"}, {"content", fenced(fast_relu("parallel"))}, {"delay_s", 1.5}});
  Engine engine(engine_options());
  OptimizeRequest req;
  req.kernel = kernel;
  req.options.samples = 3;
  req.options.rounds = 1;
  ModelSettings llm;
  llm.url = server.base_url();
  llm.model = "m";
  req.model = llm;
  auto result = engine.optimize(req);
  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_EQ(result.counts["correct"], 3) << json(result).dump(2);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  double first = requests[0]["time"], last = requests[2]["time"];
  EXPECT_LT(last - first, 1.0) << "the three samples' requests were not in flight together";
  EXPECT_FALSE(requests[0]["headers"].contains("Authorization"));
}

TEST_F(OptimizeLoop, AnInterruptedRunResumesWithoutLosingOrRepeatingCandidates) {
  auto kernel = copy_task_file("tune_transpose.cpp");
  copy_task_file("tune_transpose.py");
  std::int64_t run_id = 0;
  std::vector<std::pair<std::int64_t, std::string>> verified_before;
  {
    Engine engine(engine_options());
    OptimizeRequest req;
    req.kernel = kernel;
    req.tune_flags = false;
    req.options.samples = 2;
    req.options.rounds = 10;
    std::stop_source stop;
    std::atomic<int> verified{0};
    std::vector<OptimizeEvent> events;  // the sink is called one event at a time
    CallContext ctx;
    ctx.stop = stop.get_token();
    auto result = engine.optimize(req, ctx, [&](const OptimizeEvent& e) {
      if (e.kind == OptimizeEvent::Kind::Verified) events.push_back(e);
      if (e.kind == OptimizeEvent::Kind::Verified && ++verified == 3) stop.request_stop();  // baseline + 2
    });
    EXPECT_EQ(result.status, "interrupted");
    EXPECT_EQ(result.stop_reason, "cancelled");
    EXPECT_FALSE(result.best) << "an interrupted run reports no winner";
    // Each verified event carries the candidate's own measurement; the fastest candidate that
    // beat the original is kept as unconfirmed (not re-verified), with its speedup over it.
    ASSERT_GE(events.size(), 3u);
    ASSERT_TRUE(result.baseline && result.baseline->p50_us) << json(result).dump(2);
    std::optional<std::pair<std::int64_t, double>> fastest;
    for (const auto& e : events) {
      if (e.status != "correct") continue;
      ASSERT_TRUE(e.p50_us) << "candidate " << e.candidate_id;
      // A point speedup over eager only when both timings were quiet (issue 14): else a range, none here.
      if (e.speedup_eager) {
        EXPECT_GT(*e.speedup_eager, 0.0) << "candidate " << e.candidate_id;
      }
      if (e.candidate_id == result.baseline->id) {
        EXPECT_FALSE(e.speedup_vs_kernel || e.speedup_vs_kernel_range);
        continue;
      }
      // Over the original: the medians' ratio when both times were quiet, else a range around it.
      const double ratio = *result.baseline->p50_us / *e.p50_us;
      if (e.speedup_vs_kernel) {
        EXPECT_NEAR(*e.speedup_vs_kernel, ratio, 1e-9);
        EXPECT_FALSE(e.speedup_vs_kernel_range) << "a point and a range at once";
      } else {
        ASSERT_TRUE(e.speedup_vs_kernel_range) << "candidate " << e.candidate_id;
        EXPECT_LE(e.speedup_vs_kernel_range->low, ratio + 1e-9);
        EXPECT_GE(e.speedup_vs_kernel_range->high, ratio - 1e-9);
      }
      if (*e.p50_us < *result.baseline->p50_us && (!fastest || *e.p50_us < fastest->second))
        fastest = std::make_pair(e.candidate_id, *e.p50_us);
    }
    ASSERT_EQ(fastest.has_value(), result.unconfirmed.has_value()) << json(result).dump(2);
    if (fastest) {
      EXPECT_EQ(result.unconfirmed->id, fastest->first);
      EXPECT_GT(vs_kernel(result.unconfirmed_vs_kernel, result.unconfirmed_vs_kernel_range), 1.0);
      json j = json(result);
      EXPECT_EQ(j["unconfirmed"]["rechecked"], false);
      EXPECT_EQ(j["unconfirmed"]["source"], result.unconfirmed->source);
    }
    run_id = result.run_id;
    RunStore store(engine.store_path());
    for (const auto& c : store.candidates(run_id))
      if (c.verdict) verified_before.emplace_back(c.id, json(*c.verdict).dump());
    EXPECT_GE(verified_before.size(), 3u);
  }
  Engine engine(engine_options());
  OptimizeRequest again;
  again.resume_run = run_id;
  auto result = engine.optimize(again);
  ASSERT_EQ(result.status, "finished") << result.error;
  EXPECT_EQ(result.run_id, run_id);
  EXPECT_EQ(result.stop_reason, "exhausted");
  RunStore store(engine.store_path());
  auto cands = store.candidates(run_id);
  EXPECT_EQ(cands.size(), 6u);
  int baselines = 0;
  std::set<std::string> configs;
  for (const auto& c : cands) {
    baselines += c.origin == "baseline";
    configs.insert(c.config.dump());
    EXPECT_NE(c.status, "pending");
  }
  EXPECT_EQ(baselines, 1);
  EXPECT_EQ(configs.size(), cands.size());
  for (const auto& [id, verdict] : verified_before) {
    auto c = store.candidate(id);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->verdict);
    EXPECT_EQ(json(*c->verdict).dump(), verdict) << "candidate " << id << " was verified again";
  }
  EXPECT_TRUE(result.best);
}

TEST_F(OptimizeLoop, TheWallClockAndTokenBudgetsStopTheRun) {
  auto kernel = write("relu.cpp", kSlowRelu);
  copy_task_file("relu.py");
  hone::testing::FakeLlmServer server(dir_ / "llm");
  server.always({{"content", fenced(fast_relu("late"))}, {"delay_s", 120}});
  Engine engine(engine_options());
  OptimizeRequest req;
  req.kernel = kernel;
  req.options.samples = 2;
  req.options.rounds = 5;
  req.budget = 20s;
  ModelSettings llm;
  llm.url = server.base_url();
  llm.model = "m";
  req.model = llm;
  auto t0 = std::chrono::steady_clock::now();
  auto slow = engine.optimize(req);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 60s) << "the model calls in flight were not abandoned";
  EXPECT_EQ(slow.status, "finished");
  EXPECT_EQ(slow.stop_reason, "budget");
  EXPECT_EQ(slow.candidates, 0) << "abandoned model calls leave no candidate";

  server.always({{"content", fenced(fast_relu("cheap"))}, {"usage", {{"prompt_tokens", 900}, {"completion_tokens", 200}}}});
  req.budget = 600s;
  req.options.samples = 1;
  req.options.token_budget = 1000;
  auto thrifty = engine.optimize(req);
  EXPECT_EQ(thrifty.stop_reason, "tokens") << json(thrifty).dump(2);
  EXPECT_EQ(thrifty.candidates, 1);
  EXPECT_EQ(thrifty.usage.prompt_tokens + thrifty.usage.completion_tokens, 1100);
}

TEST_F(OptimizeLoop, BadInputGivesClearErrors) {
  Engine engine(engine_options());
  OptimizeRequest missing;
  missing.kernel = dir_ / "nope.cpp";
  try {
    engine.optimize(missing);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.cpp"), std::string::npos) << e.what();
  }
  OptimizeRequest unknown;
  unknown.resume_run = 77;
  try {
    engine.optimize(unknown);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.kind(), EngineError::Kind::Usage);
    EXPECT_NE(std::string(e.what()).find("no run 77"), std::string::npos) << e.what();
  }
  auto kernel = write("relu.cpp", kSlowRelu);
  copy_task_file("relu.py");
  OptimizeRequest no_model;
  no_model.kernel = kernel;
  no_model.model = ModelSettings{};
  no_model.model->url = "http://127.0.0.1:1";
  try {
    engine.optimize(no_model);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("--llm-model"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hone
