// tests/cli/kernelbench_cli_test.cpp: KernelBench answers through the real `hone` on the CPU
// (issue 15): a load_inline answer with cpp_sources only checked end to end (recorded in a
// confined process, built by hone's toolchain, ModelNew built as KernelBench builds it), a build
// error at the .py's line, KernelBench's never-written `empty` exploit, `hone task` listing the
// __init__ arguments, and `hone bench` over a run folder in KernelBench's layouts writing its
// eval-result format.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "timing_withheld.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFiles = HONE_KERNELBENCH_FILES;

ProcessResult hone_cli(std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {HONE_CLI};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(550);
  return run_process(spec);
}

json last_json(const ProcessResult& r) {
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  auto nl = out.rfind('\n');
  try {
    return json::parse(nl == std::string::npos ? out : out.substr(nl + 1));
  } catch (const std::exception&) {
    ADD_FAILURE() << "no JSON in: " << r.out << "\n" << r.err;
    return json::object();
  }
}

class KernelBenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hone-kb-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::all, fs::perm_options::add);  // candidates may run as another user
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(KernelBenchCli, LoadInlineAnswerIsBuiltByHoneAndCheckedEndToEnd) {
  auto r = test::until_timed(
      [] {
        return hone_cli({"check", (kFiles / "answers" / "relu_inline.py").string(), "--task",
                         (kFiles / "relu.py").string(), "--json", "--baselines", "eager"});
      },
      [](const ProcessResult& p) { return test::withheld_reason(last_json(p)); });
  json v = last_json(r);
  ASSERT_EQ(v.value("status", ""), "correct") << r.out << r.err;
  if (auto why = test::withheld_reason(v); !why.empty()) GTEST_SKIP() << "time withheld in every check: " << why;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(v["kernel"]["form"], "modelnew");
  EXPECT_EQ(v["answer"]["parameters"], "match");
  EXPECT_EQ(v["answer"]["extensions"], json::array({"relu_inline"}));
  EXPECT_NE(v["answer"]["initialised"].get<std::string>().find("42"), std::string::npos);
  EXPECT_TRUE(v["correctness"]["checks"].value("timing_bounded", false)) << "the same strict policy: timed calls bounded";
  EXPECT_GT(v["timing"]["p50_us"].get<double>(), 0.0);

  auto text = hone_cli({"check", (kFiles / "answers" / "relu_inline.py").string(), "--task", (kFiles / "relu.py").string(),
                        "--baselines", "none"});
  EXPECT_NE(text.out.find("KernelBench answer (built by hone: relu_inline)"), std::string::npos) << text.out;
}

TEST_F(KernelBenchCli, BuildErrorIsACompileErrorAtThePyLine) {
  const fs::path answer = kFiles / "answers" / "relu_compile_error.py";
  auto r = hone_cli({"check", answer.string(), "--task", (kFiles / "relu.py").string(), "--json"});
  json v = last_json(r);
  ASSERT_EQ(v.value("status", ""), "compile_error") << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1);
  bool at_line = false;
  for (const auto& d : v["compile"]["diagnostics"])
    at_line = at_line || (d.value("file", "") == answer.string() && d.value("line", 0) == 12);
  EXPECT_TRUE(at_line) << v["compile"].dump(1);
  EXPECT_NE(v.value("reason", "").find("relu_compile_error.py:12"), std::string::npos) << v.value("reason", "");
}

TEST_F(KernelBenchCli, NeverWrittenOutputOfKernelBenchsEmptyExploitIsIncorrect) {
  auto r = hone_cli({"check", (kFiles / "answers" / "relu_empty.py").string(), "--task", (kFiles / "relu.py").string(),
                     "--json", "--baselines", "none"});
  json v = last_json(r);
  EXPECT_EQ(v.value("status", ""), "incorrect") << r.out << r.err;
}

TEST_F(KernelBenchCli, AnswerNeedsItsTask) {
  auto r = hone_cli({"check", (kFiles / "answers" / "relu_inline.py").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is a KernelBench answer: give its task with --task"), std::string::npos) << r.err;
}

TEST_F(KernelBenchCli, ATaskCheckedAsAKernelSaysItIsATask) {
  auto r = hone_cli({"check", (kFiles / "relu.py").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("defines no ModelNew: it is a task, not a kernel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--task " + (kFiles / "relu.py").string()), std::string::npos) << r.err;
}

TEST_F(KernelBenchCli, TaskListsItsInitArguments) {
  auto r = hone_cli({"task", (kFiles / "linear_relu.py").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("features = 16  (hone::task::features)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scale = 2.0  (hone::task::scale)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("use_bias = true  (hone::task::use_bias)"), std::string::npos) << r.out;
}

// A raw-form CPU kernel that reads hone::task::features from the task it is checked against.
TEST_F(KernelBenchCli, HoneFormKernelSeesTheTaskConstants) {
  fs::copy_file(kFiles / "relu.py", dir_ / "scaled.py");
  {
    std::ofstream task(dir_ / "scaled.py", std::ios::app);
    task << "\n\nclass Model(nn.Module):\n    def __init__(self, factor: int):\n        super().__init__()\n"
            "        self.factor = factor\n\n    def forward(self, x):\n        return torch.relu(x) * self.factor\n\n\n"
            "def get_init_inputs():\n    return [3]\n";
  }
  std::ofstream(dir_ / "scaled.cpp") << R"(#include "hone.h"
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = (x.data()[i] > 0 ? x.data()[i] : 0.0f) * hone::task::factor;
}
)";
  auto r = hone_cli({"check", (dir_ / "scaled.cpp").string(), "--json", "--baselines", "none"});
  EXPECT_EQ(last_json(r).value("status", ""), "correct") << r.out << r.err;
}

TEST_F(KernelBenchCli, BenchOverAKernelBenchRunFolderWritesItsEvalResults) {
  fs::create_directories(dir_ / "level1");
  fs::copy_file(kFiles / "relu.py", dir_ / "level1" / "19_ReLU.py");
  fs::create_directories(dir_ / "run" / "level_1" / "problem_19" / "sample_1");
  fs::copy_file(kFiles / "answers" / "relu_inline.py", dir_ / "run" / "level_1_problem_19_sample_0_kernel.py");
  fs::copy_file(kFiles / "answers" / "relu_empty.py", dir_ / "run" / "level_1" / "problem_19" / "sample_1" / "kernel.py");
  for (const auto& p : fs::recursive_directory_iterator(dir_)) fs::permissions(p.path(), fs::perms::all, fs::perm_options::add);
  const fs::path out = dir_ / "eval_results.json";
  auto r = hone_cli({"bench", (dir_ / "level1").string(), "--kernels", (dir_ / "run").string(), "--format", "kernelbench",
                     "--out", out.string(), "--baselines", "eager"});
  EXPECT_EQ(r.exit_code, 1) << "one sample is incorrect\n" << r.out << r.err;
  std::ifstream in(out);
  json results = json::parse(in);
  ASSERT_TRUE(results.contains("19")) << results.dump(1);
  ASSERT_EQ(results["19"].size(), 2u) << results.dump(1);
  const json& good = results["19"][0];
  EXPECT_EQ(good["sample_id"], 0);
  EXPECT_TRUE(good["compiled"].get<bool>());
  EXPECT_TRUE(good["correctness"].get<bool>());
  EXPECT_GT(good["runtime"].get<double>(), 0.0);
  EXPECT_LT(good["runtime"].get<double>(), 1000.0) << "milliseconds";
  EXPECT_GT(good["ref_runtime"].get<double>(), 0.0);
  EXPECT_TRUE(good["runtime_stats"].contains("num_trials"));
  const json& bad = results["19"][1];
  EXPECT_EQ(bad["sample_id"], 1);
  EXPECT_TRUE(bad["compiled"].get<bool>());
  EXPECT_FALSE(bad["correctness"].get<bool>());
  EXPECT_EQ(bad["runtime"], -1.0);
  EXPECT_TRUE(bad["metadata"].contains("correctness_issue"));
  EXPECT_NE(r.out.find("fast_"), std::string::npos) << "fast_p over both samples is printed: " << r.out;
}

}  // namespace
}  // namespace hone
