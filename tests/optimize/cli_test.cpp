// tests/optimize/cli_test.cpp: `hone optimize`, `hone runs` and `hone export` through the real
// binary on the CPU tuner example: the JSON result, plain progress lines off a terminal, a run
// killed with SIGKILL mid-way and resumed, and usage errors with exit code 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_llm_server.h"
#include "loop_fixture.h"
#include "support/hash.h"
#include "support/subprocess.h"

namespace hone {
namespace {

using nlohmann::json;

class OptimizeCli : public testing::Workspace {
 protected:
  ProcessResult hone(std::vector<std::string> args, std::chrono::seconds timeout = std::chrono::seconds(600)) {
    ProcessSpec spec;
    spec.argv = {HONE_BIN};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.cwd = dir_;
    spec.timeout = timeout;
    auto env = current_environment();
    env.erase("HONE_LLM_URL");
    env.erase("HONE_LLM_MODEL");
    spec.env = env;
    return run_process(spec);
  }
};

TEST_F(OptimizeCli, OptimizesListsAndExportsWithTheBuiltInTuner) {
  copy_task_file("tune_transpose.cpp");
  copy_task_file("tune_transpose.py");
  auto r = hone({"optimize", "tune_transpose.cpp", "--no-llm", "--no-flags", "--samples", "3", "--rounds", "6", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << r.err << r.out;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["best"]["status"], "correct");
  // A clear gain, re-verified, not its size (as loop_test's tuner test): CI's shared 2-core machine
  // read BLOCK 8 over BLOCK 1 at 1.28x once, both times noisy (2026-12-06), where this asked for 1.3x.
  // A point only when both times were quiet (issue 14), else a range: then its high end.
  const json& speedup = j["best"]["speedup"];
  const double vs_kernel = speedup["kernel"].is_number() ? speedup["kernel"].get<double>()
                                                         : speedup.value("kernel_range", json::object()).value("high", 0.0);
  EXPECT_GT(vs_kernel, 1.1) << j.dump(2);
  EXPECT_NE(j["best"]["source"].get<std::string>().find("constexpr int BLOCK = "), std::string::npos);
  EXPECT_NE(j["diff"].get<std::string>().find("-constexpr int BLOCK = 1;"), std::string::npos);
  EXPECT_EQ(j["counts"]["correct"], 5) << j.dump(2);
  // Off a terminal, progress comes as plain lines on stderr.
  EXPECT_NE(r.err.find("round 1: 3 candidate(s)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" correct"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\r"), std::string::npos);

  auto runs = hone({"runs", "--json"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  auto list = json::parse(runs.out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["status"], "finished");
  EXPECT_EQ(list[0]["proposer"], "tuner");
  auto text = hone({"runs"});
  EXPECT_NE(text.out.find("tune_transpose.cpp"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("the original"), std::string::npos) << text.out;

  auto exported = hone({"export", std::to_string(j["run_id"].get<int>()), "-o", "run.jsonl"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::string jsonl = read_file(dir_ / "run.jsonl");
  int lines = 0;
  for (std::size_t at = jsonl.find('\n'); at != std::string::npos; at = jsonl.find('\n', at + 1)) ++lines;
  EXPECT_EQ(lines, 6);
  auto first = json::parse(jsonl.substr(0, jsonl.find('\n')));
  EXPECT_EQ(first["origin"], "baseline");

  auto text_run = hone({"optimize", "tune_transpose.cpp", "--no-llm", "--no-flags", "--samples", "3"});
  EXPECT_EQ(text_run.exit_code, 0) << text_run.err;
  EXPECT_TRUE(text_run.out.find("× faster than the original") != std::string::npos ||
              text_run.out.find("× the original (noisy)") != std::string::npos)
      << text_run.out;
  EXPECT_NE(text_run.out.find("--- a/tune_transpose.cpp"), std::string::npos) << text_run.out;
}

TEST_F(OptimizeCli, ARunKilledMidwayResumesFromTheStore) {
  copy_task_file("tune_transpose.cpp");
  copy_task_file("tune_transpose.py");
  // Kill hone with SIGKILL once two candidates besides the original have been verified.
  std::string script = std::string("\"") + HONE_BIN +
                       "\" optimize tune_transpose.cpp --no-llm --no-flags --samples 1 --rounds 10 2> err.log & pid=$!\n"
                       "for i in $(seq 1 1200); do\n"
                       "  [ \"$(grep -c '^\\[.*\\] #[0-9]* ' err.log)\" -ge 3 ] && break\n"
                       "  sleep 0.25\n"
                       "done\n"
                       "kill -9 $pid; wait $pid; exit 0\n";
  ProcessSpec spec;
  spec.argv = {"bash", "-c", script};
  spec.cwd = dir_;
  spec.timeout = std::chrono::seconds(600);
  auto killed = run_process(spec);
  ASSERT_TRUE(killed.ok()) << killed.describe() << killed.err;
  auto runs = json::parse(hone({"runs", "--json"}).out);
  ASSERT_EQ(runs.size(), 1u) << read_file(dir_ / "err.log");
  EXPECT_EQ(runs[0]["status"], "running") << "a killed run stays marked running";
  auto resumed = hone({"optimize", "--resume", std::to_string(runs[0]["id"].get<int>()), "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err << resumed.out;
  auto j = json::parse(resumed.out);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["candidates"], 5) << j.dump(2);
  EXPECT_EQ(j["best"]["status"], "correct");
  EXPECT_NE(resumed.err.find("resuming run"), std::string::npos) << resumed.err;
}

TEST_F(OptimizeCli, AModelEndpointFromTheCommandLineWithTheKeyFromTheEnvironment) {
  copy_task_file("relu.py");
  write("relu.cpp",
        "#include \"hone.h\"\n"
        "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
        "  volatile int passes = 6;\n"
        "  for (int p = 0; p < passes; ++p)\n"
        "    for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;\n"
        "}\n");
  hone::testing::FakeLlmServer server(dir_ / "llm");
  server.always({{"reasoning", "one pass is enough"},
                 {"content", "```cpp\n#include \"hone.h\"\nvoid forward(hone::In<float> x, hone::Out<float> out, "
                             "hone::Stream) {\n  const float* __restrict a = x.data();\n  float* __restrict o = "
                             "out.data();\n  for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] > 0.f ? a[i] : 0.f;\n}\n```\n"},
                 {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 300}}}});
  ProcessSpec spec;
  spec.argv = {HONE_BIN, "optimize", "relu.cpp", "--llm-url", server.base_url(), "--llm-model", "deepseek-reasoner",
               "--samples", "2", "--rounds", "1", "--llm-price-input", "0.55", "--llm-price-output", "2.19", "--json"};
  spec.cwd = dir_;
  spec.timeout = std::chrono::seconds(600);
  auto env = current_environment();
  env["HONE_LLM_API_KEY"] = "sk-cli-test-key-42";
  spec.env = env;
  auto r = run_process(spec);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << r.err << r.out;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["best"]["origin"], "llm");
  EXPECT_EQ(j["tokens"]["prompt"], 2000);
  EXPECT_NEAR(j["cost_usd"].get<double>(), 2 * (1000 * 0.55 + 300 * 2.19) / 1e6, 1e-9);
  EXPECT_EQ(j["proposer"]["llm"]["model"], "deepseek-reasoner");
  EXPECT_EQ(r.out.find("sk-cli-test-key-42"), std::string::npos);
  EXPECT_EQ(r.err.find("sk-cli-test-key-42"), std::string::npos);
  for (const auto& req : server.requests()) EXPECT_EQ(req["headers"]["Authorization"], "Bearer sk-cli-test-key-42");
  auto runs = json::parse(hone({"runs", "--json"}).out);
  EXPECT_EQ(runs[0]["config"]["llm"]["api_key_set"], true);
  EXPECT_EQ(runs[0]["config"]["llm"]["url"], server.base_url());
  EXPECT_EQ(store_bytes().find("sk-cli-test-key-42"), std::string::npos);
}

TEST_F(OptimizeCli, UsageErrorsExitWithTwoAndSayWhy) {
  auto none = hone({"optimize"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--resume"), std::string::npos) << none.err;
  auto both = hone({"optimize", "k.cpp", "--resume", "1"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("or --resume RUN"), std::string::npos) << both.err;
  auto budget = hone({"optimize", "k.cpp", "--budget", "5x"});
  EXPECT_EQ(budget.exit_code, 2);
  EXPECT_NE(budget.err.find("15m"), std::string::npos) << budget.err;
  auto half = hone({"optimize", "k.cpp", "--llm-url", "http://localhost:8000/v1"});
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_NE(half.err.find("--llm-model"), std::string::npos) << half.err;
  auto missing = hone({"optimize", "missing.cpp", "--no-llm"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing.cpp"), std::string::npos) << missing.err;
  auto no_store = hone({"export", "3"});
  EXPECT_EQ(no_store.exit_code, 2);
  EXPECT_NE(no_store.err.find("no store"), std::string::npos) << no_store.err;
  auto empty = hone({"runs"});
  EXPECT_EQ(empty.exit_code, 0);
  EXPECT_NE(empty.out.find("no runs yet"), std::string::npos) << empty.out;
}

}  // namespace
}  // namespace hone
