// tests/optimize/prompt_test.cpp: hone's own prompt templates rendered with a real verdict's
// facts (compile errors with lines, a mismatch, timings, the GPU, history), no HTML escaping,
// R1's advice (no system message), custom template folders and template errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "optimize/prompt_context.h"
#include "optimize/prompt_templates.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A verdict from the fields a test names, with the identity fields every verdict has.
hone::protocol::Verdict verdict_of(json fields) {
  json v = {{"kernel", {{"path", "/ws/relu.cu"}, {"hash", "k"}}},
            {"task", {{"path", "/ws/relu.py"}, {"hash", "t"}}},
            {"device", {{"kind", "cuda"}, {"name", "NVIDIA H200"}}},
            {"sandbox", {{"mode", "bwrap"}}},
            {"compile", {{"ok", true}, {"diagnostics", json::array()}}}};
  v.update(fields);
  return v.get<hone::protocol::Verdict>();
}

hone::protocol::DeviceFacts h200_facts() {
  hone::protocol::DeviceFacts d;
  d.name = "NVIDIA H200";
  d.arch = "sm_90";
  d.sm_count = 132;
  d.l2_bytes = 62914560;
  d.shared_bytes_per_sm = 233472;
  return d;
}

hone::protocol::GpuSpec h200_spec() {
  hone::protocol::GpuSpec s;
  s.peak_dram_bytes_per_s = 4.8e12;
  s.fp32 = 6.7e13;
  s.bf16_tensor = 9.89e14;
  return s;
}

hone::PromptInputs sample_inputs() {
  hone::PromptInputs in;
  in.task_name = "19_ReLU";
  in.task_path = "/ws/relu.py";
  in.task_source = "class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n";
  in.device = hone::protocol::Device::cuda(0);
  in.signature = json{{"inputs", {{{"name", "x"}, {"kind", "tensor"}, {"dtype", "float32"}, {"shape", {4096, 393216}}}}},
                  {"params", json::array()},
                  {"outputs", {{{"name", "out0"}, {"kind", "tensor"}, {"dtype", "float32"}, {"shape", {4096, 393216}}}}},
                  {"raw", "void forward(hone::In<float> x, hone::Out<float> out0, hone::Stream stream)"},
                  {"torch", "torch::Tensor forward(torch::Tensor x)"}}.get<hone::protocol::Signature>();
  in.kernel_path = "relu.cu";
  in.kernel_source = "if (a < b && c > d) { x = y; }\n";
  json verdict = {{"status", "incorrect"},
                {"reason", "out0[3, 17] got 0.51, expected 0.5"},
                {"compile", {{"ok", true},
                             {"diagnostics", {{{"file", "relu.cu"}, {"line", 12}, {"column", 5}, {"severity", "warning"},
                                               {"message", "unused variable"}}}},
                             {"kernels", {{{"name", "relu_kernel"}, {"mangled", "_Z4relu"}, {"registers", 16},
                                           {"spill_store_bytes", 0}, {"occupancy", {{"occupancy_pct", 100.0}}}}}}}},
                {"correctness", {{"atol", 1e-5}, {"rtol", 1e-5},
                                 {"trials", {{{"seed", 7}, {"passed", false}, {"max_abs_error", 0.01},
                                              {"mismatch", {{"output", 0}, {"index", {3, 17}}, {"got", 0.51},
                                                            {"expected", 0.5}, {"count", 12}}}}}}}},
                {"timing", {{"p50_us", 41.234}, {"p10_us", 40.0}, {"p90_us", 43.0}, {"reps", 100}, {"method", "x"}}},
                {"baselines", {{"eager", {{"p50_us", 74.0}, {"p10_us", 73.0}, {"p90_us", 75.0}, {"reps", 100}, {"method", "x"}}},
                               {"compile", nullptr}}},
                {"speedup", {{"eager", 1.7946}, {"compile", nullptr}}},
                {"floor", {{"floor_us", 30.0}}},
                {"flags", {{{"id", "timing_noisy"}, {"message", "p90 is 10% above p50"}}}}};
  in.gpu = h200_facts();
  in.gpu_spec = h200_spec();
  verdict["profile"] = {{"device", {{"name", "NVIDIA H200"}}},
                 {"candidate",
                 {{"kernels", {{{"name", "relu_kernel"}, {"own", true}, {"duration_us", 40.0},
                                {"metrics", {{"smsp__sass_inst_executed.sum", 1000.0}}},
                                {"derived", {{"global_load_efficiency_pct", 25.0}, {"achieved_occupancy_pct", 48.5}}}}}},
                  {"counters", {{"available", true}}},
                  {"roofline", {{"bound", "memory"}, {"pct_of_roofline", 62.0}, {"memory_pct", 62.0},
                                {"compute_pct", 3.1}, {"arithmetic_intensity", 0.125}}}}},
                {"suggestions", {{{"id", "narrow_loads"}, {"title", "Loads are 4 bytes wide"},
                                  {"detail", "16-byte vector loads would cut load instructions 4x"}}}}};
  in.verdict = verdict_of(verdict);
  in.history = {{1, 0, std::nullopt, "correct", 74.0, 1.0, ""},
                {2, 1, 1, "compile_error", std::nullopt, std::nullopt, "relu.cu:3: error: expected ';'\nmore"}};
  in.round = 2;
  return in;
}

TEST(PromptContext, ReadsTheVerdictIntoVariables) {
  auto ctx = hone::prompt_context(sample_inputs());
  EXPECT_EQ(ctx["language"], "CUDA C++");
  EXPECT_EQ(ctx["verdict"]["correct"], false);
  EXPECT_EQ(ctx["verdict"]["p50_us"], "41.2");
  EXPECT_EQ(ctx["verdict"]["speedup_eager"], "1.79");
  EXPECT_EQ(ctx["verdict"]["sol_pct"], "72.8");
  EXPECT_EQ(ctx["verdict"]["mismatch"], "out[3,17] got 0.51, expected 0.5 (trial 1, seed 7); 12 elements out of tolerance; max abs error 0.01");
  EXPECT_EQ(ctx["verdict"]["has_compile_errors"], false);  // a warning is not an error
  EXPECT_EQ(ctx["gpu"]["dram_gb_per_s"], "4800");
  EXPECT_EQ(ctx["gpu"]["l2_mb"], "60");
  EXPECT_EQ(ctx["history"][1]["note"], "relu.cu:3: error: expected ';'");
  EXPECT_FALSE(hone::prompt_context([] {
                 auto in = sample_inputs();
                 in.device = hone::protocol::Device::cpu();
                 return in;
               }())
                   .contains("gpu"));
}

TEST(PromptContext, ANoisySpeedupReachesTheModelAsARange) {
  auto in = sample_inputs();
  in.verdict->speedup->eager = std::nullopt;
  in.verdict->speedup->eager_range = hone::protocol::SpeedupRange{1.43, 2.1};
  auto ctx = hone::prompt_context(in);
  EXPECT_EQ(ctx["verdict"]["speedup_eager"], "1.4–2.1");
  auto messages = hone::PromptTemplates::load(HONE_PROMPTS_DIR).render(ctx);
  EXPECT_NE(messages[0].content.find("speedup 1.4–2.1× over eager"), std::string::npos) << messages[0].content;
  in.history.push_back({3, 2, 1, "correct", 40.0, std::nullopt, "", hone::protocol::SpeedupRange{1.2, 1.9}});
  EXPECT_EQ(hone::prompt_context(in)["history"][2]["speedup"], "1.2–1.9") << "a noisy attempt's range in the history";
}

TEST(PromptTemplates, HonesTemplatesRenderEverySectionWithoutEscaping) {
  auto t = hone::PromptTemplates::load(HONE_PROMPTS_DIR);
  auto messages = t.render(hone::prompt_context(sample_inputs()));
  ASSERT_EQ(messages.size(), 1u) << "R1 advice: no system message";
  EXPECT_EQ(messages[0].role, "user");
  const auto& u = messages[0].content;
  EXPECT_EQ(u.rfind("You are an expert CUDA C++ performance engineer", 0), 0u) << "template comments render nothing";
  EXPECT_NE(u.find("return torch.relu(x)\n```"), std::string::npos) << "no blank line closing a block";
  for (const char* expected :
       {"return torch.relu(x)", "void forward(hone::In<float> x, hone::Out<float> out0, hone::Stream stream)",
        "torch::Tensor forward(torch::Tensor x)", "if (a < b && c > d) { x = y; }", "## Its verdict: incorrect",
        "Mismatch: out[3,17] got 0.51, expected 0.5 (trial 1, seed 7)", "Time: 41.2 µs median; PyTorch eager 74 µs; speedup 1.79× over eager",
        "72.8% of speed-of-light", "note: p90 is 10% above p50", "relu_kernel: 16 registers", "NVIDIA H200 (sm_90)",
        "132 SMs; DRAM 4800 GB/s", "#2 (round 1, from #1): compile_error: relu.cu:3: error: expected ';'",
        "Fix what the verdict reports first", "```cuda\nif (a < b",
        "Roofline: memory-bound, 62% of the roofline (DRAM 62% of peak, compute 3.1% of peak), arithmetic intensity 0.125 FLOP/byte.",
        "- relu_kernel global_load_efficiency_pct: 25", "- Loads are 4 bytes wide: 16-byte vector loads would cut"}) {
    EXPECT_NE(u.find(expected), std::string::npos) << "missing: " << expected << "\n---\n" << u;
  }
  EXPECT_EQ(u.find("&lt;"), std::string::npos) << u;
  EXPECT_EQ(u.find("{{"), std::string::npos) << u;
  EXPECT_EQ(u.find("Compiler errors"), std::string::npos) << "no empty sections";
}

TEST(PromptTemplates, AFirstRoundOnTheCpuHasNoVerdictOrGpuSections) {
  auto in = sample_inputs();
  in.device = hone::protocol::Device::cpu();
  in.verdict.reset();
  in.history.clear();
  auto u = hone::PromptTemplates::load(HONE_PROMPTS_DIR).render(hone::prompt_context(in))[0].content;
  EXPECT_EQ(u.find("## Its verdict"), std::string::npos) << u;
  EXPECT_EQ(u.find("## The GPU"), std::string::npos) << u;
  EXPECT_EQ(u.find("Earlier attempts"), std::string::npos) << u;
  EXPECT_NE(u.find("```cpp"), std::string::npos) << u;
  EXPECT_NE(u.find("on the CPU"), std::string::npos) << u;
  EXPECT_EQ(u.find("## The user's direction"), std::string::npos) << "no hint, no section";
}

TEST(PromptTemplates, TheUsersHintIsItsOwnSectionBeforeTheAnswer) {
  auto in = sample_inputs();
  in.hint = "\n  Use 16-byte loads (float4) in relu_kernel.  \n";
  auto ctx = hone::prompt_context(in);
  EXPECT_EQ(ctx["hint"], "Use 16-byte loads (float4) in relu_kernel.");
  auto u = hone::PromptTemplates::load(HONE_PROMPTS_DIR).render(ctx)[0].content;
  auto hint = u.find("## The user's direction\nUse 16-byte loads (float4) in relu_kernel.\n");
  ASSERT_NE(hint, std::string::npos) << u;
  EXPECT_LT(hint, u.find("## Your answer")) << u;
  in.hint = " \n\t ";
  EXPECT_FALSE(hone::prompt_context(in).contains("hint")) << "blank hints are no hint";
}

class TemplateDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hone-prompt-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

TEST_F(TemplateDir, ACustomFolderWithASystemPromptIsUsed) {
  write("system.mustache", "You write {{language}} for {{#gpu}}{{gpu.name}}{{/gpu}}.\n");
  write("user.mustache", "{{#verdict}}{{verdict.status}}: {{verdict.reason}}{{/verdict}}");
  auto m = hone::PromptTemplates::load(dir_).render(hone::prompt_context(sample_inputs()));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].role, "system");
  EXPECT_EQ(m[0].content, "You write CUDA C++ for NVIDIA H200.");
  EXPECT_EQ(m[1].content, "incorrect: out0[3, 17] got 0.51, expected 0.5\n");
}

TEST_F(TemplateDir, MissingAndBrokenTemplatesNameTheFile) {
  write("system.mustache", "");
  try {
    hone::PromptTemplates::load(dir_);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("user.mustache"), std::string::npos) << e.what();
  }
  write("user.mustache", "{{#verdict}} never closed");
  try {
    hone::PromptTemplates::load(dir_);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "user.mustache").string()), std::string::npos) << e.what();
  }
}

}  // namespace
