// tests/attention/attention_cpu_test.cpp: the attention family (tasks/attention) on the CPU
// through the real `hone` binary and PyTorch: every variant's CPU kernel is correct against its
// twin task; deliberately wrong versions (the bias without log2(e), ALiBi slopes counted from 0,
// masks off by one, the wrong cap, no prefix) are incorrect at the tasks' tolerances; each twin
// keeps its GPU task's reference and tolerances, and each CPU kernel its GPU kernel's hooks.
#include "attention_test_util.h"

namespace hone::attention_test {
namespace {

TEST(AttentionCpu, EveryVariantsCpuKernelIsCorrect) {
  std::vector<fs::path> kernels;
  for (const auto& v : kVariants) kernels.push_back(kTasks / "cpu" / (v + ".cpp"));
  auto verdicts = check_on_cpu(kernels);
  ASSERT_EQ(verdicts.size(), kVariants.size());
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const json& v = verdicts[i];
    EXPECT_EQ(v["status"], "correct") << kVariants[i] << ": " << summary(v);
    // The task's HONE_ATOL / HONE_RTOL, not the dtype default (1e-2 for bf16).
    const double expected = kVariants[i] == "causal_fp32" ? 1e-4 : 5e-2;
    EXPECT_DOUBLE_EQ(v["correctness"]["atol"].get<double>(), expected) << kVariants[i];
    EXPECT_DOUBLE_EQ(v["correctness"]["rtol"].get<double>(), expected) << kVariants[i];
  }
}

struct Mutation {
  std::string variant;
  std::string what;
  std::vector<std::pair<std::string, std::string>> edits;
};

const std::vector<Mutation> kWrong = {
    {"relative_position",
     "the bias added without log2(e) to the base-2 score",
     {{"static_cast<float>(q_idx - kv_idx) * hone_attention::kLog2e", "static_cast<float>(q_idx - kv_idx)"}}},
    {"alibi", "ALiBi slopes 2^(-8h/H) counted from h = 0", {{"static_cast<float>(h + 1)", "static_cast<float>(h)"}}},
    {"causal",
     "the causal mask off by one",
     {{"return kv_idx <= q_idx;", "return kv_idx <= q_idx + 1;"}, {"{0, q_last + 1}", "{0, q_last + 2}"}}},
    {"softcap", "cap 30 instead of 50", {{"50.f * hone_attention::kLog2e", "30.f * hone_attention::kLog2e"}}},
    {"sliding_window", "the window off by one", {{"q_idx - kv_idx <= kWindow", "q_idx - kv_idx < kWindow"}}},
    {"causal_fp32",
     "the causal mask off by one",
     {{"return kv_idx <= q_idx;", "return kv_idx <= q_idx + 1;"}, {"{0, q_last + 1}", "{0, q_last + 2}"}}},
    {"prefix_lm", "no prefix (plain causal)", {{"kv_idx < kPrefix || kv_idx <= q_idx", "kv_idx <= q_idx"}}},
};

TEST(AttentionCpu, DeliberatelyWrongVariantsAreIncorrect) {
  TempDir dir;
  fs::copy_file(kTasks / "cpu" / "attention_cpu.h", dir.path / "attention_cpu.h");
  std::vector<fs::path> kernels;
  for (const auto& m : kWrong) {
    fs::copy_file(kTasks / "cpu" / (m.variant + ".py"), dir.path / (m.variant + ".py"));
    std::string source = read_text(kTasks / "cpu" / (m.variant + ".cpp"));
    for (const auto& [from, to] : m.edits) source = replace_all(source, from, to);
    kernels.push_back(dir.path / ("wrong_" + m.variant + ".cpp"));
    write_text(kernels.back(), "// hone: task=" + m.variant + ".py\n" + source);
  }
  auto verdicts = check_on_cpu(kernels);
  ASSERT_EQ(verdicts.size(), kWrong.size());
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    EXPECT_EQ(verdicts[i]["status"], "incorrect") << kWrong[i].variant << " with " << kWrong[i].what << ": "
                                                  << summary(verdicts[i]);
    // Wrong values, not a crash or NaN: the tolerance is what rejects them.
    EXPECT_NE(verdicts[i].value("reason", "").find("elements out of tolerance"), std::string::npos)
        << kWrong[i].variant << ": " << summary(verdicts[i]);
  }
}

// The text of `source` from the first occurrence of `from` up to the first `to` after it.
std::string between(const std::string& source, const std::string& from, const std::string& to, const fs::path& file) {
  const auto begin = source.find(from);
  if (begin == std::string::npos) throw std::runtime_error(file.string() + ": no `" + from + "`");
  const auto end = source.find(to, begin);
  if (end == std::string::npos) throw std::runtime_error(file.string() + ": no `" + to + "` after `" + from + "`");
  return source.substr(begin, end - begin);
}

TEST(AttentionCpu, TwinsKeepTheirGpuTasksReferenceAndTolerances) {
  for (const auto& v : kVariants) {
    const fs::path gpu = kTasks / (v + ".py"), twin = kTasks / "cpu" / (v + ".py");
    const std::string from = v == "causal_fp32" ? "class Model" : "HONE_ATOL";
    EXPECT_EQ(between(read_text(gpu), from, "\nbatch = ", gpu), between(read_text(twin), from, "\nbatch = ", twin))
        << twin << " must define the Model and tolerances of " << gpu;
  }
}

TEST(AttentionCpu, CpuKernelsHaveTheirGpuKernelsHooks) {
  for (const auto& v : kVariants) {
    const fs::path cu = kTasks / (v + ".cu"), cpp = kTasks / "cpu" / (v + ".cpp");
    const std::string gpu = read_text(cu), cpu = read_text(cpp);
    EXPECT_EQ(between(gpu, "\nstruct ", "\n};\n", cu), between(cpu, "\nstruct ", "\n};\n", cpp))
        << cpp << " must define the hooks of " << cu;
    for (const char* constant : {"constexpr int kWindow", "constexpr int kPrefix"}) {
      if (gpu.find(constant) != std::string::npos) {
        EXPECT_EQ(between(gpu, constant, ";", cu), between(cpu, constant, ";", cpp)) << v;
      }
    }
  }
}

}  // namespace
}  // namespace hone::attention_test
