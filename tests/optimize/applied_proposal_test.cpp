// tests/optimize/applied_proposal_test.cpp: an applied proposal is the verified kernel. The tuner
// verifies a kernel that is fast only when built with -ffast-math; the winner's flags travel in its
// text (a `// hone: flags=` line, in the diff too), so the file a user gets by applying it (the
// editor's Apply writes the proposal's text through the engine; a user applies the CLI's diff with
// git apply) rebuilds with the same flags and kernel hash and checks correct again. Real g++,
// the real worker under /usr/bin/python3, the real `hone` binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "loop_fixture.h"
#include "support/hash.h"
#include "support/subprocess.h"

namespace hone {
namespace {

using nlohmann::json;

// Correct either way; forty passes instead of one unless the compiler was given -ffast-math.
const char* kFastOnlyWithFastMath =
    "// relu that repeats its pass unless it was built with -ffast-math\n"
    "#include \"hone.h\"\n"
    "#ifdef __FAST_MATH__\n"
    "constexpr int kPasses = 1;\n"
    "#else\n"
    "constexpr int kPasses = 40;\n"
    "#endif\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
    "  const float* in = x.data();\n"
    "  float* o = out.data();\n"
    "  const int64_t n = x.numel();\n"
    "  volatile int passes = kPasses;\n"
    "  for (int pass = 0; pass < passes; ++pass)\n"
    "    for (int64_t i = 0; i < n; ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;\n"
    "}\n";

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

class AppliedProposal : public testing::Workspace {
 protected:
  std::filesystem::path kernel() {
    std::filesystem::copy_file(std::filesystem::path(HONE_TASKS_DIR) / "relu.py", dir_ / "fastmath_relu.py");
    return write("fastmath_relu.cpp", kFastOnlyWithFastMath);
  }
  ProcessResult run(std::vector<std::string> argv) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.cwd = dir_;
    spec.timeout = std::chrono::seconds(600);
    auto env = current_environment();
    env.erase("HONE_LLM_URL");
    env.erase("HONE_LLM_MODEL");
    spec.env = env;
    return run_process(spec);
  }
};

TEST_F(AppliedProposal, TheEditorsApplyRebuildsTheVerifiedKernel) {
  const auto path = kernel();
  Engine engine(engine_options());
  OptimizeRequest req;
  req.kernel = path;
  req.device = "cpu";
  req.options.samples = 5;
  req.options.rounds = 1;
  req.budget = std::chrono::seconds(400);
  protocol::OptimizeResult result = engine.optimize(req);
  ASSERT_TRUE(result.best) << result.stop_reason << " " << result.error;
  ASSERT_TRUE(result.best_recheck);
  EXPECT_TRUE(has(result.best->flags, "-ffast-math")) << result.best->source;
  EXPECT_NE(result.best->source.find("// hone: flags="), std::string::npos) << result.best->source;
  EXPECT_NE(result.diff.find("+// hone: flags="), std::string::npos) << result.diff;
  const auto& verified = *result.best_recheck;
  EXPECT_TRUE(has(verified.compile.command, "-ffast-math"));

  // The editor's Apply replaces the document with the proposal's text (server/lsp/job_work.cpp).
  write("fastmath_relu.cpp", result.best->source);
  protocol::BuildReport rebuilt = engine.build(BuildRequest{{path, std::nullopt}, {}, false});
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.outcome;
  EXPECT_EQ(rebuilt.kernel_hash, verified.kernel.hash);
  EXPECT_EQ(rebuilt.compile.command, verified.compile.command);
  protocol::Verdict again = engine.check(CheckRequest{{path, std::nullopt}});
  EXPECT_EQ(again.status, protocol::Status::Correct) << again.reason.value_or("");
  EXPECT_EQ(again.kernel.hash, verified.kernel.hash);
  EXPECT_EQ(again.compile.command, verified.compile.command);
}

TEST_F(AppliedProposal, TheCliDiffAppliedWithGitRebuildsTheVerifiedKernel) {
  kernel();
  ProcessResult r = run({HONE_BIN, "optimize", "fastmath_relu.cpp", "--no-llm", "--samples", "5", "--rounds", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  json j = json::parse(r.out);
  const auto flags = j["best"]["flags"].get<std::vector<std::string>>();
  EXPECT_TRUE(has(flags, "-ffast-math")) << j.dump(2);
  const json& verified = j["best"]["recheck_verdict"];
  // Each candidate's own line, labelled, with what it tried.
  EXPECT_NE(r.err.find("each line below is one candidate's own result"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tried flags -ffast-math"), std::string::npos) << r.err;

  std::ofstream(dir_ / "proposal.diff") << j["diff"].get<std::string>();
  ProcessResult applied = run({"git", "apply", "proposal.diff"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err << j["diff"].get<std::string>();
  EXPECT_EQ(read_file(dir_ / "fastmath_relu.cpp"), j["best"]["source"].get<std::string>());

  ProcessResult built = run({HONE_BIN, "build", "fastmath_relu.cpp", "--json"});
  ASSERT_EQ(built.exit_code, 0) << built.err << built.out;
  json b = json::parse(built.out);
  EXPECT_EQ(b["kernel_hash"], verified["kernel"]["hash"]);
  EXPECT_EQ(b["compile"]["command"], verified["compile"]["command"]);
  ProcessResult checked = run({HONE_BIN, "check", "fastmath_relu.cpp", "--json"});
  ASSERT_EQ(checked.exit_code, 0) << checked.err << checked.out;
  json v = json::parse(checked.out);
  EXPECT_EQ(v["status"], "correct");
  EXPECT_EQ(v["kernel"]["hash"], verified["kernel"]["hash"]);
  EXPECT_EQ(v["compile"]["command"], verified["compile"]["command"]);
}

}  // namespace
}  // namespace hone
