// The light torch header: what the source scan asks for (over a made-up torch include folder),
// and real builds against the torch found here: a kernel using many torch features builds light
// and computes the right answer in Python; one that needs more is rebuilt with the full header;
// one with a real error reports the full build's diagnostics at the user's line; a .cu kernel
// with AT_DISPATCH over c10::Half (and the CUDA stream and guard where torch has CUDA) builds.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/paths.h"
#include "support/subprocess.h"
#include "toolchain/torch_env.h"
#include "toolchain/torch_light.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using TorchLight = ToolchainTest;

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST_F(TorchLight, ScanFindsCalledOperatorsThatHaveHeaders) {
  for (const char* op : {"empty_like", "zeros", "add", "relu", "matmul", "softmax"}) write(std::string("inc/ATen/ops/") + op + ".h", "");
  const std::string kernel = R"K(#include <torch/extension.h>
// torch::softmax(x) in a comment is not a call
torch::Tensor forward(torch::Tensor x) {
  auto y = torch::empty_like(x);
  auto z = at::zeros<int>({4}, x.options());
  torch::add_out(y, x, x);
  at::relu_(y);
  auto s = "torch::matmul(a, b)";
  TORCH_CHECK(x.dim() == 2, "2-D");
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "k", [&] {});
  return torch::not_an_op(y) + torch::kFloat32;
}
)K";
  const std::string header = "inline at::Tensor twice(at::Tensor x) { return ::at::matmul (x, x); }\n";
  TorchLightPlan plan = plan_torch_light({kernel, header}, {dir_ / "nothing", dir_ / "inc"});
  ASSERT_TRUE(plan.usable) << plan.why_full;
  EXPECT_TRUE(plan.dispatch);
  EXPECT_EQ(plan.op_headers, (std::vector<std::string>{"ATen/ops/add.h", "ATen/ops/empty_like.h", "ATen/ops/matmul.h",
                                                       "ATen/ops/relu.h", "ATen/ops/zeros.h"}));
  EXPECT_NE(plan.ops_header_text.find("#include <ATen/Dispatch.h>\n"), std::string::npos);
  EXPECT_NE(plan.ops_header_text.find("#include <ATen/ops/empty_like.h>\n"), std::string::npos);
  EXPECT_EQ(plan.ops_header_text.find("softmax"), std::string::npos);

  TorchLightPlan plain = plan_torch_light({"torch::Tensor forward(torch::Tensor x) { return x * 2; }\n"}, {dir_ / "inc"});
  EXPECT_TRUE(plain.usable);
  EXPECT_FALSE(plain.dispatch);
  EXPECT_TRUE(plain.op_headers.empty());
}

TEST_F(TorchLight, ScanSendsTheFrontendAutogradAndOtherTorchHeadersToTheFullHeader) {
  const std::vector<std::filesystem::path> inc{dir_};
  auto nn = plan_torch_light({"auto y = torch::nn::functional::relu(x);"}, inc);
  EXPECT_FALSE(nn.usable);
  EXPECT_NE(nn.why_full.find("torch::nn"), std::string::npos);
  auto grad = plan_torch_light({"", "auto o = x.options().requires_grad(true);"}, inc);
  EXPECT_FALSE(grad.usable);
  EXPECT_NE(grad.why_full.find("requires_grad"), std::string::npos);
  auto other = plan_torch_light({"#include <torch/extension.h>\n#include  <torch/torch.h>\n"}, inc);
  EXPECT_FALSE(other.usable);
  EXPECT_EQ(other.why_full, "it includes <torch/torch.h>");
  EXPECT_TRUE(plan_torch_light({"// #include <torch/torch.h>\n#include <torch/extension.h>\n"}, inc).usable);
}

// Runs forward through torch.ops and compares it with the expression `expect` (of x).
void expect_op(const TorchEnv& torch, const BuildResult& r, const std::string& expect) {
  const std::string script = R"(
import sys, torch
torch.ops.load_library(sys.argv[1])
op = getattr(getattr(torch.ops, sys.argv[2]), "forward")
x = torch.linspace(-3, 3, 12).reshape(3, 4)
want = )" + expect + R"(
got = op(x)
assert torch.allclose(got, want), (got, want)
print("ok")
)";
  auto p = run_process({.argv = {torch.python.string(), "-c", script, r.library.string(), r.op_namespace},
                        .timeout = std::chrono::seconds(300)});
  EXPECT_TRUE(p.ok()) << p.describe() << "\n" << p.out << p.err;
}

TEST_F(TorchLight, KernelUsingManyTorchFeaturesBuildsLightAndComputesTheRightResult) {
  auto torch = find_torch_env();
  if (!torch.env) GTEST_SKIP() << "no Python with torch: " << torch.error;
  auto kernel = write("many.cpp", R"(#include <torch/extension.h>
#include "scale.h"
template <typename T>
void add_one(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + T(1);
}
torch::Tensor forward(torch::Tensor x) {
  TORCH_CHECK(x.dim() == 2, "expected 2-D, got ", x.dim());
  x = x.contiguous();
  auto y = torch::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "add_one", [&] {
    add_one<scalar_t>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), x.numel());
  });
  c10::Half h(0.5f);
  auto z = torch::zeros({x.size(0), x.size(1)}, torch::dtype(torch::kFloat32).device(x.device()));
  z.fill_(static_cast<float>(h));
  auto m = at::matmul(x, x.t());
  return scale(torch::relu(y) + z, 2.0) + m.sum() * 0 + at::softmax(x, 1).sum(1, true) - 1;
}
)");
  write("scale.h", "#pragma once\ninline at::Tensor scale(const at::Tensor& t, double s) { return at::mul(t, s); }\n");
  BuildResult r = build(kernel);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error << "\n" << (r.report.diagnostics.empty() ? "" : r.report.diagnostics[0].message);
  EXPECT_EQ(r.torch_headers, "light");
  EXPECT_EQ(r.stage_seconds.count("compile_light"), 0u);
  EXPECT_TRUE(has(r.report.command, "-DHONE_TORCH_LIGHT"));
  const std::string ops = read_file(std::filesystem::path(r.library).parent_path() / kTorchOpsHeader);
  for (const char* h : {"ATen/Dispatch.h", "ATen/ops/matmul.h", "ATen/ops/mul.h", "ATen/ops/relu.h", "ATen/ops/softmax.h"})
    EXPECT_NE(ops.find(h), std::string::npos) << h << " missing from\n" << ops;
  expect_op(*torch.env, r, "(torch.relu(x + 1) + 0.5) * 2.0");
}

TEST_F(TorchLight, KernelNeedingMoreIsRebuiltWithTheFullHeader) {
  auto torch = find_torch_env();
  if (!torch.env) GTEST_SKIP() << "no Python with torch: " << torch.error;
  auto kernel = write("slice.cpp", R"(#include <torch/extension.h>
using namespace torch::indexing;
torch::Tensor forward(torch::Tensor x) { return x.index({Slice(None, None), 0}).clone(); }
)");
  BuildResult r = build(kernel);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_EQ(r.torch_headers, "full: the light header did not suffice");
  EXPECT_EQ(r.stage_seconds.count("compile_light"), 1u);
  EXPECT_FALSE(has(r.report.command, "-DHONE_TORCH_LIGHT"));
  EXPECT_TRUE(r.report.diagnostics.empty()) << r.report.diagnostics[0].message;
  const std::string log = read_file(std::filesystem::path(r.library).parent_path() / "build.log");
  EXPECT_NE(log.find("# light headers (failed"), std::string::npos);
  expect_op(*torch.env, r, "x[:, 0]");
}

TEST_F(TorchLight, RealErrorIsReportedFromTheFullBuildAtTheUsersLine) {
  auto torch = find_torch_env();
  if (!torch.env) GTEST_SKIP() << "no Python with torch: " << torch.error;
  auto kernel = write("broken.cpp", R"(#include <torch/extension.h>
torch::Tensor forward(torch::Tensor x) {
  auto y = torch::relu(x);
  return y + undefined_name;
}
)");
  BuildResult r = build(kernel);
  ASSERT_EQ(r.outcome, BuildOutcome::CompileError);
  EXPECT_EQ(r.torch_headers, "full: the light header did not suffice");
  ASSERT_EQ(r.report.count(protocol::Severity::Error), 1u);
  const auto& d = r.report.diagnostics[0];
  EXPECT_EQ(d.file, kernel.string());
  EXPECT_EQ(d.line, 4);
  EXPECT_NE(d.message.find("undefined_name"), std::string::npos) << d.message;
  EXPECT_FALSE(has(r.report.command, "-DHONE_TORCH_LIGHT"));
}

TEST_F(TorchLight, CudaKernelWithDispatchHalfAndStreamBuildsLight) {
  HONE_REQUIRE_NVCC();
  auto torch = find_torch_env();
  if (!torch.env) GTEST_SKIP() << "no Python with torch: " << torch.error;
  // The CUDA stream and guard headers exist only in a CUDA build of torch.
  const bool cuda_torch = torch.env->cuda.has_value();
  std::string stream = cuda_torch ? R"(
  const c10::cuda::CUDAGuard guard(x.device());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();)"
                                  : R"(
  cudaStream_t stream = 0;)";
  auto kernel = write("half.cu", std::string(cuda_torch ? "#include <ATen/cuda/CUDAContext.h>\n" : "") + R"(#include <torch/extension.h>
#include <cuda_fp16.h>
template <typename T>
__global__ void twice(const T* x, T* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + x[i];
}
torch::Tensor forward(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");)" + stream + R"(
  auto y = torch::empty_like(x);
  long n = x.numel();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "twice", [&] {
    twice<scalar_t><<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
  });
  return y;
}
)");
  BuildResult r = build(kernel);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error << "\n" << (r.report.diagnostics.empty() ? "" : r.report.diagnostics[0].message);
  EXPECT_EQ(r.torch_headers, "light");
  EXPECT_EQ(r.stage_seconds.count("compile_light"), 0u);
  EXPECT_GE(r.report.kernels.size(), 3u) << "float, double and c10::Half instantiations";
}

}  // namespace
}  // namespace hone::toolchain::testing
