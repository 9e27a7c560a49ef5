// Both kernel forms built and called for real: the raw form through ctypes (CPU here, the GPU
// where there is one), the torch form through torch.ops.load_library in Python (two kernels in
// one process, each calling its own forward), and a torch-form .cu built against the torch found
// here (run on the GPU where torch has CUDA).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "toolchain/torch_env.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using KernelForms = ToolchainTest;

const std::string kRunner = std::string(HONE_TOOLCHAIN_TEST_DIR) + "/kernel_runner.py";

const char* kRawCpu = R"(#include "hone.h"
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] > 0 ? x.data()[i] : 0.0f;
}
)";

const char* kRawCuda = kRawCudaKernels;

const char* kTorchRelu = R"(#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) { return torch::relu(x); }
)";

const char* kTorchNeg = R"(#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) { return -x; }
)";

const char* kTorchCuda = R"(#include <torch/extension.h>
__global__ void relu_kernel(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : 0.0f;
}
torch::Tensor forward(torch::Tensor x) {
  auto y = torch::empty_like(x);
  long n = x.numel();
  relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
)";

nlohmann::json run_json(const std::vector<std::string>& argv) {
  auto r = run_process({.argv = argv, .timeout = std::chrono::seconds(300)});
  std::string last = r.out.substr(0, r.out.find('\n'));
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.out << "\n" << r.err;
  try {
    return nlohmann::json::parse(last);
  } catch (const std::exception&) {
    ADD_FAILURE() << "unreadable output: " << r.out << "\n" << r.err;
    return {};
  }
}

bool gpu_available(const std::optional<TorchEnv>& torch) { return local_gpu_arch().has_value() && torch && torch->cuda; }

TEST_F(KernelForms, RawFormOnCpuThroughCtypes) {
  auto python = find_program("python3");
  ASSERT_TRUE(python);
  BuildResult r = build(write("relu.cpp", kRawCpu));
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_EQ(r.form, KernelForm::Raw);
  EXPECT_TRUE(r.op_namespace.empty());
  auto j = run_json({python->string(), kRunner, "raw", r.library.string(), "cpu"});
  EXPECT_EQ(j.value("signature", ""), "in:float32,out:float32,stream");
  EXPECT_EQ(j.value("contract_rc", 0), 1);
  EXPECT_NE(j.value("contract_error", "").find("forward takes float32, the task passes int32"), std::string::npos) << j.dump();
}

TEST_F(KernelForms, RawFormCudaBuildsAndRunsWhereThereIsAGpu) {
  HONE_REQUIRE_NVCC();
  BuildResult r = build(write("relu.cu", kRawCuda), std::nullopt);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_EQ(r.report.arch, local_gpu_arch().value_or("sm_90")) << "without --arch: the local GPU's, else sm_90";
  auto torch = find_torch_env().env;
  if (!gpu_available(torch)) GTEST_SKIP() << "built; running it needs a GPU and a CUDA torch (the H200 run does)";
  auto j = run_json({torch->python.string(), kRunner, "raw", r.library.string(), "cuda"});
  EXPECT_EQ(j.value("signature", ""), "in:float32,out:float32,stream");
}

bool has_flag(const BuildResult& r, const std::string& flag) {
  return std::find(r.report.command.begin(), r.report.command.end(), flag) != r.report.command.end();
}

// hone.h leaves out cuda_fp16.h / cuda_bf16.h for kernels that never name a 16-bit float, keeps
// them for those that do, and rebuilds with them when a kernel needed them without naming them.
TEST_F(KernelForms, RawFormIncludesTheFp16HeadersOnlyWhenTheKernelNeedsThem) {
  HONE_REQUIRE_NVCC();
  BuildResult plain = build(write("relu.cu", kRawCuda));
  ASSERT_EQ(plain.outcome, BuildOutcome::Built) << plain.error;
  EXPECT_TRUE(has_flag(plain, "-DHONE_NO_FP16_HEADERS"));
  EXPECT_EQ(plain.stage_seconds.count("compile_light"), 0u);

  BuildResult half = build(write("half.cu", R"(#include "hone.h"
__global__ void twice(const __half* x, __half* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hadd(x[i], x[i]);
}
void forward(hone::In<__half> x, hone::Out<__half> y, hone::Stream s) {
  twice<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data(), y.data(), x.numel());
}
)"));
  ASSERT_EQ(half.outcome, BuildOutcome::Built) << half.error;
  EXPECT_FALSE(has_flag(half, "-DHONE_NO_FP16_HEADERS"));

  // The type's name is pasted together, so the text never spells it: the light build fails and
  // the rebuild with the headers succeeds, reporting nothing from the first attempt.
  BuildResult hidden = build(write("hidden.cu", R"(#include "hone.h"
#define CAT(a, b) a##b
using H = CAT(__ha, lf);
__global__ void twice(const H* x, H* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hadd(x[i], x[i]);
}
void forward(hone::In<H> x, hone::Out<H> y, hone::Stream s) {
  twice<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data(), y.data(), x.numel());
}
)"));
  ASSERT_EQ(hidden.outcome, BuildOutcome::Built) << hidden.error;
  EXPECT_EQ(hidden.stage_seconds.count("compile_light"), 1u);
  EXPECT_FALSE(has_flag(hidden, "-DHONE_NO_FP16_HEADERS"));
  EXPECT_TRUE(hidden.report.diagnostics.empty()) << hidden.report.diagnostics[0].message;
  ASSERT_EQ(hidden.report.kernels.size(), 1u);
  EXPECT_EQ(hidden.report.kernels[0].line, 4);
}

// hone.h leaves out <string> and <stdexcept> (HONE_LEAN_STD) for raw kernels that never name the
// standard library, keeps them for those that do, and rebuilds with them when a kernel needed them
// without naming them. The entry point's messages are the same either way (RawFormOnCpuThroughCtypes
// reads one from a lean build).
TEST_F(KernelForms, RawFormLeavesOutTheStringHeadersOnlyWhenTheKernelNamesNoStd) {
  BuildResult lean = build(write("relu.cpp", kRawCpu));
  ASSERT_EQ(lean.outcome, BuildOutcome::Built) << lean.error;
  EXPECT_TRUE(has_flag(lean, "-DHONE_LEAN_STD"));

  BuildResult named = build(write("named.cpp", R"(#include "hone.h"
void forward(hone::In<float> x, hone::Out<float> y) {
  if (x.numel() > (1 << 30)) throw hone::Error("too big: " + std::to_string(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = std::min(x.data()[i], 1.0f);
}
)"));
  ASSERT_EQ(named.outcome, BuildOutcome::Built) << named.error;
  EXPECT_FALSE(has_flag(named, "-DHONE_LEAN_STD"));
  EXPECT_EQ(named.stage_seconds.count("compile_light"), 0u);

  BuildResult hidden = build(write("hidden.cpp", R"(#include "hone.h"
#define NS st##d
void forward(hone::In<float> x, hone::Out<float> y) {
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = NS::min(x.data()[i], 1.0f);
}
)"));
  ASSERT_EQ(hidden.outcome, BuildOutcome::Built) << hidden.error;
  EXPECT_EQ(hidden.stage_seconds.count("compile_light"), 1u);
  EXPECT_FALSE(has_flag(hidden, "-DHONE_LEAN_STD"));
  EXPECT_TRUE(hidden.report.diagnostics.empty()) << hidden.report.diagnostics[0].message;
}

TEST_F(KernelForms, TorchFormOnCpuLoadsInPythonAndEachOpCallsItsOwnForward) {
  auto torch = find_torch_env();
  if (!torch.env) GTEST_SKIP() << "no Python with torch: " << torch.error;
  BuildResult relu = build(write("relu_t.cpp", kTorchRelu));
  ASSERT_EQ(relu.outcome, BuildOutcome::Built) << relu.error;
  BuildResult neg = build(write("neg_t.cpp", kTorchNeg));
  ASSERT_EQ(neg.outcome, BuildOutcome::Built) << neg.error;
  EXPECT_EQ(relu.form, KernelForm::Torch);
  EXPECT_EQ(relu.op_namespace, "hone_" + relu.key.substr(0, 16));
  EXPECT_NE(relu.op_namespace, neg.op_namespace);
  EXPECT_EQ(relu.stage_seconds.count("glue"), 1u);
  BuildResult again = build(dir_ / "relu_t.cpp");
  EXPECT_TRUE(again.cached);
  EXPECT_LT(again.seconds, 0.2) << "a cached torch-form build must not pay for torch or the glue again";
  EXPECT_EQ(again.op_namespace, relu.op_namespace);
  auto j = run_json({torch.env->python.string(), kRunner, "torch", "cpu", relu.library.string(), relu.op_namespace, "relu",
                     neg.library.string(), neg.op_namespace, "neg"});
  ASSERT_TRUE(j.value("ok", false)) << j.dump();
  ASSERT_EQ(j["ops"].size(), 2u);
  EXPECT_EQ(j["ops"][0]["schema"], relu.op_namespace + "::forward(Tensor a0) -> Tensor");
}

TEST_F(KernelForms, TorchFormCudaBuildsWithTheShimAndRunsWhereThereIsAGpu) {
  HONE_REQUIRE_NVCC();
  auto torch = find_torch_env();
  if (!torch.env) GTEST_SKIP() << "no Python with torch: " << torch.error;
  BuildRequest req;
  req.kernel = write("relu_t.cu", kTorchCuda);
  req.arch = "sm_90";
  BuildResult r = builder().build(req);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  ASSERT_EQ(r.report.kernels.size(), 1u);
  EXPECT_EQ(r.report.kernels[0].line, 2);
  const auto& command = r.report.command;
  EXPECT_NE(std::find(command.begin(), command.end(), "-std=c++17"), command.end());
  EXPECT_NE(std::find(command.begin(), command.end(), "-DHONE_OP_NAMESPACE=" + r.op_namespace), command.end());
  if (!gpu_available(torch.env)) GTEST_SKIP() << "built; running it needs a GPU and a CUDA torch (the H200 run does)";
  auto j = run_json({torch.env->python.string(), kRunner, "torch", "cuda", r.library.string(), r.op_namespace, "relu"});
  EXPECT_TRUE(j.value("ok", false)) << j.dump();
}

}  // namespace
}  // namespace hone::toolchain::testing
