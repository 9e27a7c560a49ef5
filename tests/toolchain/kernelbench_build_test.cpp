// What KernelBench answers need from the toolchain (issue 15), over real g++, nvcc and torch:
// the task's __init__ scalars as constexprs (both forms, CPU and GPU builds), CUDA libraries
// linked for kernels that include their headers (cuBLAS here; running needs a GPU), and a
// load_inline call's sources built in the torch form with diagnostics at the .py's lines.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/subprocess.h"
#include "toolchain/cuda_libraries.h"
#include "toolchain/inline_source.h"
#include "toolchain/task_constants.h"
#include "toolchain/torch_env.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using KernelBenchBuild = ToolchainTest;

const std::vector<TaskConstant> kConstants{{"n_head", "int", "8"}, {"scale", "float", "0.125"}, {"causal", "bool", "true"}};

const char* kRawCpuConstants = R"(#include "hone.h"
static_assert(hone::task::n_head == 8, "n_head");
static_assert(hone::task::causal, "causal");
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] * float(hone::task::scale) * hone::task::n_head;
}
)";

const char* kRawCudaConstants = R"(#include "hone.h"
__global__ void scale_kernel(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * float(hone::task::scale) * hone::task::n_head;  // used in device code
}
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  static_assert(hone::task::n_head == 8, "n_head");
  scale_kernel<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data(), y.data(), x.numel());
}
)";

BuildResult build_with(const KernelBuilder& b, const std::filesystem::path& kernel, std::vector<TaskConstant> constants) {
  BuildRequest r;
  r.kernel = kernel;
  r.arch = "sm_90";
  r.task_constants = std::move(constants);
  return b.build(r);
}

TEST_F(KernelBenchBuild, TaskConstantsPreludeNamesEachScalar) {
  std::string p = task_constants_prelude(kConstants);
  EXPECT_NE(p.find("constexpr long long n_head = 8LL;"), std::string::npos) << p;
  EXPECT_NE(p.find("constexpr double scale = 0.125;"), std::string::npos) << p;
  EXPECT_NE(p.find("constexpr bool causal = true;"), std::string::npos) << p;
  EXPECT_NE(task_constants_prelude({{"x", "float", "2"}}).find("= 2.0;"), std::string::npos);
  EXPECT_NE(task_constants_prelude({{"x", "float", "inf"}}).find("__builtin_huge_val()"), std::string::npos);
  EXPECT_EQ(task_constants_prelude({{"not an identifier", "int", "1"}}), "");
  EXPECT_EQ(task_constants_prelude({}), "");
}

TEST_F(KernelBenchBuild, RawCpuKernelSeesTheTaskConstantsAndKeepsItsLines) {
  auto kernel = write("scale.cpp", kRawCpuConstants);
  BuildResult with = build_with(builder(), kernel, kConstants);
  ASSERT_EQ(with.outcome, BuildOutcome::Built) << with.error;
  BuildResult without = build_with(builder(), kernel, {});
  ASSERT_EQ(without.outcome, BuildOutcome::CompileError);
  ASSERT_FALSE(without.report.diagnostics.empty());
  EXPECT_EQ(without.report.diagnostics.front().line, 2) << "the user's lines keep their numbers";
  EXPECT_NE(with.key, without.key);
}

TEST_F(KernelBenchBuild, TorchCpuKernelSeesTheTaskConstants) {
  if (!find_torch_env().env) GTEST_SKIP() << "no Python with torch";
  auto kernel = write("scale_torch.cpp", R"(#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) { return x * (double(hone::task::n_head) * hone::task::scale); }
)");
  BuildResult r = build_with(builder(), kernel, kConstants);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
}

TEST_F(KernelBenchBuild, RawCudaKernelSeesTheTaskConstantsInDeviceCode) {
  HONE_REQUIRE_NVCC();
  BuildResult r = build_with(builder(), write("scale.cu", kRawCudaConstants), kConstants);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
}

TEST_F(KernelBenchBuild, LibraryHeadersNameTheirLibraries) {
  std::vector<std::string_view> texts{"#include <cublas_v2.h>\n#include <cublasLt.h>\n#include <curand_kernel.h>\n",
                                      "#include \"cufft.h\"\n#include <cusparse.h>\n#include <cudnn.h>\n"};
  EXPECT_EQ(cuda_libraries_named(texts),
            (std::vector<std::string>{"cublas", "cublasLt", "cufft", "cusparse", "cudnn"}));
  EXPECT_TRUE(cuda_libraries_named({"#include <curand_kernel.h>\n"}).empty()) << "cuRAND's device API is header-only";
  EXPECT_EQ(cuda_libraries_named({"#include <curand.h>\n"}), std::vector<std::string>{"curand"});
}

// KernelBench's own non-default-stream answer calls cublasCreate/cublasGemmEx: restated in the raw
// form it used to fail to link ("undefined reference to `cublasCreate_v2`").
TEST_F(KernelBenchBuild, RawCudaKernelCallingCublasLinks) {
  HONE_REQUIRE_NVCC();
  BuildResult r = build(write("gemm.cu", R"(#include "hone.h"
#include <cublas_v2.h>
void forward(hone::In<float> a, hone::In<float> b, hone::Out<float> c, hone::Stream s) {
  static cublasHandle_t handle = nullptr;
  if (!handle) cublasCreate(&handle);
  cublasSetStream(handle, s);
  const int n = static_cast<int>(a.size(0));
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data(), n, a.data(), n, &zero, c.data(), n);
}
)"));
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error << "\n" << (r.report.diagnostics.empty() ? "" : r.report.diagnostics[0].message);
  EXPECT_TRUE(std::find(r.report.command.begin(), r.report.command.end(), "-lcublas") != r.report.command.end());
  auto ldd = run_process({.argv = {"ldd", r.library.string()}, .timeout = std::chrono::seconds(30)});
  EXPECT_NE(ldd.out.find("libcublas.so"), std::string::npos) << ldd.out;
  EXPECT_EQ(ldd.out.find("libcublas.so.13 => not found"), std::string::npos) << "the rpath finds it: " << ldd.out;
}

TEST_F(KernelBenchBuild, SourceLinesAreFoundInTheAnswerFile) {
  const std::string py = "import torch\nsrc = \"\"\"\n#include <torch/extension.h>\n\ntorch::Tensor f(torch::Tensor x) {\n"
                         "    return x;\n}\n\"\"\"\nmod = load_inline(name='m', cpp_sources=src, functions=['f'])\n";
  const std::string src = "\n#include <torch/extension.h>\n\ntorch::Tensor f(torch::Tensor x) {\n    return x;\n}\n";
  std::vector<int> lines = source_lines_in(py, src);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[1], 3);
  EXPECT_EQ(lines[3], 5);
  EXPECT_EQ(lines[4], 6);
  EXPECT_EQ(lines[5], 7);
}

TEST_F(KernelBenchBuild, LoadInlineCallBuildsWithErrorsAtThePyLine) {
  if (!find_torch_env().env) GTEST_SKIP() << "no Python with torch";
  const std::string py_good =
      "from torch.utils.cpp_extension import load_inline\n"
      "src = '''\n#include <torch/extension.h>\ntorch::Tensor twice(torch::Tensor x) { return x + x; }\n"
      "void nothing(torch::Tensor x, int64_t k, double s, bool b) {}\n'''\n"
      "m = load_inline(name='ext', cpp_sources=src, functions=['twice', 'nothing'])\n";
  auto answer = write("answer.py", py_good);
  InlineCall call{"ext", {"\n#include <torch/extension.h>\ntorch::Tensor twice(torch::Tensor x) { return x + x; }\n"
                          "void nothing(torch::Tensor x, int64_t k, double s, bool b) {}\n"},
                  {}, {"twice", "nothing"}, {""}, {}, {""}, {}};
  InlineSource s = inline_source(answer, py_good, call);
  ASSERT_TRUE(s.problem.empty()) << s.problem;
  EXPECT_EQ(s.language, KernelLanguage::Cpp);
  EXPECT_TRUE(s.flags.empty()) << "empty flags (KernelBench's extra_cflags=[\"\"]) are dropped";
  BuildRequest r;
  r.kernel = s.kernel;
  r.contents = s.text;
  r.inline_functions = s.functions;
  BuildResult built = builder().build(r);
  ASSERT_EQ(built.outcome, BuildOutcome::Built) << built.error << "\n" << s.text;
  EXPECT_EQ(built.form, KernelForm::Torch);
  EXPECT_FALSE(built.op_namespace.empty());

  const std::string py_bad = "from torch.utils.cpp_extension import load_inline\nsrc = '''\n#include <torch/extension.h>\n"
                             "torch::Tensor twice(torch::Tensor x) { return x + undefined_thing; }\n'''\n";
  auto bad_answer = write("bad.py", py_bad);
  InlineCall bad{"ext", {"\n#include <torch/extension.h>\ntorch::Tensor twice(torch::Tensor x) { return x + undefined_thing; }\n"},
                 {}, {"twice"}, {}, {}, {}, {}};
  InlineSource bs = inline_source(bad_answer, py_bad, bad);
  BuildRequest br;
  br.kernel = bs.kernel;
  br.contents = bs.text;
  br.inline_functions = bs.functions;
  BuildResult failed = builder().build(br);
  ASSERT_EQ(failed.outcome, BuildOutcome::CompileError);
  bool at_line = false;
  for (const auto& d : failed.report.diagnostics)
    at_line = at_line || (d.file == bad_answer.string() && d.line == 4 && d.severity == protocol::Severity::Error);
  EXPECT_TRUE(at_line) << "the error names bad.py:4 (the line of the undefined name in the .py)";
}

TEST_F(KernelBenchBuild, LoadInlineCallWithoutFunctionsIsAProblem) {
  InlineSource s = inline_source(dir_ / "a.py", "", InlineCall{"ext", {"int f();"}, {}, {}, {}, {}, {}, {}});
  EXPECT_NE(s.problem.find("names no functions"), std::string::npos) << s.problem;
  InlineSource cu = inline_source(dir_ / "a.py", "", InlineCall{"ext", {"x"}, {"y"}, {"f"}, {"-O2"}, {"-O3"}, {"-lcublas", "-Wl,-z,now"}, {"/inc"}});
  EXPECT_EQ(cu.language, KernelLanguage::Cuda);
  EXPECT_EQ(cu.flags, (std::vector<std::string>{"-I/inc", "-O3", "-Xcompiler", "-O2", "-lcublas", "-Xlinker", "-z,now"}));
}

}  // namespace
}  // namespace hone::toolchain::testing
