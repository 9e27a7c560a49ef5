// tests/optimize/attention_prompt_test.cpp: the prompt `hone optimize` sends for an attention task
// (tasks/attention/cpu/relative_position, NVIDIA's R1 + verifier example) carries the variant's
// score_mod and the exp2 note (bias times 1.44269504, the reference's bias unscaled) through the
// task's docstring, and the hook the kernel implements. Real binary, real worker and torch on the
// CPU, the fake model server; the GPU half (the H200's specs and profile counters in the prompt)
// is checked by scripts/gpu/attention.sh.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_llm_server.h"
#include "loop_fixture.h"
#include "support/subprocess.h"

namespace hone {
namespace {

using nlohmann::json;

class AttentionPrompt : public testing::Workspace {};

TEST_F(AttentionPrompt, CarriesTheScoreModAndTheExp2Note) {
  for (const char* f : {"relative_position.py", "relative_position.cpp", "attention_cpu.h"})
    std::filesystem::copy_file(std::filesystem::path(HONE_TASKS_DIR) / "attention" / "cpu" / f, dir_ / f);
  std::ifstream in(dir_ / "relative_position.cpp");
  const std::string kernel((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  hone::testing::FakeLlmServer server(dir_ / "llm");
  server.always({{"content", "```cpp\n" + kernel + "```\n"}, {"usage", true}});
  ProcessSpec spec;
  spec.argv = {HONE_BIN, "optimize", "relative_position.cpp", "--llm-url", server.base_url(), "--llm-model", "m",
               "--samples", "1", "--rounds", "1", "--json"};
  spec.cwd = dir_;
  spec.timeout = std::chrono::seconds(600);
  auto r = run_process(spec);
  ASSERT_TRUE(r.started && !r.timed_out) << r.describe() << "\n" << r.err;
  auto requests = server.requests();
  ASSERT_FALSE(requests.empty()) << r.err << r.out;
  const auto& messages = requests[0]["body"]["messages"];
  ASSERT_FALSE(messages.empty());
  const std::string prompt = messages.back()["content"];
  for (const char* expected : {"def score_mod(score, b, h, q_idx, kv_idx):\n            return score + (q_idx - kv_idx)",
                               "qk_scale = sm_scale * 1.44269504",
                               "qk * qk_scale + (q_idx - kv_idx) * 1.44269504",
                               "this reference does not scale the bias",
                               "HONE_ATOL = 5e-2",
                               "static_cast<float>(q_idx - kv_idx) * hone_attention::kLog2e"})
    EXPECT_NE(prompt.find(expected), std::string::npos) << "missing: " << expected << "\n---\n" << prompt;
}

}  // namespace
}  // namespace hone
