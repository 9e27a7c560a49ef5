// `hone build` as a user runs it: the real binary in a child process, its exit codes, its text and
// its JSON, which must validate against $defs/compile of the verdict schema (python3-jsonschema).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

class HoneBuildCli : public ToolchainTest {
 protected:
  ProcessResult hone(std::vector<std::string> args, std::map<std::string, std::string> extra_env = {}) const {
    std::vector<std::string> argv{HONE_EXE, "build"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto env = current_environment();
    env["HONE_CACHE_DIR"] = (dir_ / "cache").string();
    for (const auto& [k, v] : extra_env) env[k] = v;
    return run_process({.argv = argv, .env = env, .timeout = std::chrono::seconds(600)});
  }

  // The first Python that has jsonschema (Debian's python3-jsonschema is under /usr/bin/python3).
  static std::optional<std::string> python_with_jsonschema() {
    for (const char* p : {"/usr/bin/python3", "python3"}) {
      auto r = run_process({.argv = {p, "-c", "import jsonschema"}});
      if (r.ok()) return std::string(p);
    }
    return std::nullopt;
  }

  void expect_valid(const std::string& json_text) const {
    auto python = python_with_jsonschema();
    if (!python) {
      ADD_FAILURE() << "python3-jsonschema is missing (scripts/install-deps.sh installs it)";
      return;
    }
    auto r = run_process({.argv = {*python, std::string(HONE_TOOLCHAIN_TEST_DIR) + "/validate_compile_report.py",
                                   std::string(HONE_SCHEMA_DIR) + "/verdict.schema.json"},
                          .stdin_data = json_text});
    EXPECT_TRUE(r.ok()) << r.out << r.err;
    EXPECT_EQ(r.out, "valid\n");
  }
};

const char* kGood = R"(#include "hone.h"
__global__ void relu(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : 0.0f;
}
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  relu<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data(), y.data(), x.numel());
}
)";

TEST_F(HoneBuildCli, BuiltJsonValidatesAndTextShowsTheFacts) {
  HONE_REQUIRE_NVCC();
  auto path = write("relu.cu", kGood);
  auto r = hone({path.string(), "--arch", "sm_90", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "built");
  EXPECT_EQ(j["form"], "raw");
  EXPECT_EQ(j["compile"]["ok"], true);
  EXPECT_EQ(j["compile"]["kernels"][0]["name"], "relu(float const*, float*, long)");
  EXPECT_EQ(j["compile"]["kernels"][0]["line"], 2);
  expect_valid(r.out);

  auto text = hone({path.string(), "--arch", "sm_90"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("(cached)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("relu(float const*, float*, long)  (line 2)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("registers "), std::string::npos);
  EXPECT_NE(text.out.find("loads 32-bit x1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("occupancy 100% (64/64 warps, 8 blocks of 256 threads per SM; block size from the launch site"),
            std::string::npos)
      << text.out;
}

TEST_F(HoneBuildCli, CompileErrorExitsOneWithCompilerStyleLines) {
  auto path = write("bad.cpp", "#include \"hone.h\"\nvoid forward(hone::Out<float> y, hone::Stream) {\n  y.data()[0] = oops;\n}\n");
  auto r = hone({path.string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "compile_error");
  expect_valid(r.out);

  auto text = hone({path.string()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.err.find(path.string() + ":3:17: error: "), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("did not compile (1 error(s))"), std::string::npos) << text.err;
}

TEST_F(HoneBuildCli, BadInputAndMissingToolsExitTwo) {
  auto missing = hone({(dir_ / "nope.cu").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;

  auto ext = hone({write("k.txt", "").string()});
  EXPECT_EQ(ext.exit_code, 2);
  EXPECT_NE(ext.err.find("unknown kernel file type"), std::string::npos) << ext.err;

  auto usage = hone({});
  EXPECT_EQ(usage.exit_code, 2);

  auto cu = write("k.cu", kGood);
  auto no_nvcc = hone({cu.string()}, {{"HONE_NVCC", (dir_ / "nvcc").string()}});
  EXPECT_EQ(no_nvcc.exit_code, 2);
  EXPECT_NE(no_nvcc.err.find("install the CUDA toolkit"), std::string::npos) << no_nvcc.err;

  auto no_torch = hone({write("t.cpp", "#include <torch/extension.h>\ntorch::Tensor forward(torch::Tensor x) { return x; }\n").string(),
                        "--python", (dir_ / "no-python").string()});
  EXPECT_EQ(no_torch.exit_code, 2);
  EXPECT_NE(no_torch.err.find("no Python interpreter that imports torch"), std::string::npos) << no_torch.err;
  EXPECT_NE(no_torch.err.find("the raw form needs no torch"), std::string::npos) << no_torch.err;
}

}  // namespace
}  // namespace hone::toolchain::testing
