// Tests of the source analysis: language, form, forward, __global__ functions, launch bounds,
// launch-site block sizes, local header closure; and of kernel -> task pairing.
#include <gtest/gtest.h>

#include "toolchain/kernel_source.h"
#include "toolchain/task_pairing.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using SourceAnalysis = ToolchainTest;
using TaskPairingTest = ToolchainTest;

TEST(KernelLanguage, ByExtension) {
  EXPECT_EQ(language_for_path("a/b.cu"), KernelLanguage::Cuda);
  EXPECT_EQ(language_for_path("b.cuh"), KernelLanguage::Cuda);
  EXPECT_EQ(language_for_path("b.cpp"), KernelLanguage::Cpp);
  EXPECT_EQ(language_for_path("b.cc"), KernelLanguage::Cpp);
  EXPECT_EQ(language_for_path("b.cxx"), KernelLanguage::Cpp);
  EXPECT_FALSE(language_for_path("b.py"));
  EXPECT_FALSE(language_for_path("Makefile"));
  EXPECT_THROW(analyze_kernel_source("k.txt", "void forward();"), std::runtime_error);
}

TEST_F(SourceAnalysis, RawFormGlobalsLaunchBoundsAndLaunchSites) {
  const std::string src = R"(// relu, raw form
#include "hone.h"
#define BLOCK 128
constexpr int kTile = 4 * 64;
namespace detail { constexpr int kWide = 512; }

/* a comment mentioning __global__ void fake(int) and forward( */
__global__ void __launch_bounds__(BLOCK) relu_kernel(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : 0;
}

template <int B>
__global__ void tiled(float* y) { y[threadIdx.x] = B; }

__launch_bounds__(detail::kWide, 2) __global__ void wide(float* y) { y[0] = 1; }

__global__ void unknown_block(float* y);

void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  const char* text = "kernel<<<1, 2>>>";
  long n = x.numel();
  int threads = 64;
  dim3 block2d(16, 8);
  relu_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(x.data(), y.data(), n);
  tiled<kTile><<<1, kTile, 0, s>>>(y.data());
  wide<<<1, dim3(32, 16), 0, s>>>(y.data());
  unknown_block<<<1, y.size(0), 0, s>>>(y.data());
  tiled<1><<<2, block2d, 0, s>>>(y.data());
  relu_kernel<<<1, threads, 0, s>>>(x.data(), y.data(), n);
  (void)text;
}
)";
  auto path = write("k/relu.cu", src);
  SourceFacts f = analyze_kernel_source(path, src);
  EXPECT_EQ(f.language, KernelLanguage::Cuda);
  ASSERT_TRUE(f.form);
  EXPECT_EQ(*f.form, KernelForm::Raw);
  ASSERT_TRUE(f.forward);
  EXPECT_EQ(f.forward->line, 20);
  EXPECT_EQ(f.forward->file, path);

  ASSERT_EQ(f.globals.size(), 4u);
  const GlobalFunction* relu = f.find_global("relu_kernel");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->line, 8);
  EXPECT_EQ(relu->launch_bounds, 128);
  const GlobalFunction* tiled = f.find_global("tiled");
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ(tiled->line, 14);
  EXPECT_FALSE(tiled->launch_bounds);
  const GlobalFunction* wide = f.find_global("wide");
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(wide->launch_bounds, 512);
  EXPECT_EQ(wide->line, 16);
  EXPECT_NE(f.find_global("unknown_block"), nullptr);
  EXPECT_EQ(f.find_global("fake"), nullptr) << "__global__ inside a comment is not a kernel";

  // Launch sites (the one inside a string literal is not one).
  ASSERT_EQ(f.launches.size(), 6u);
  EXPECT_EQ(f.launches[0].kernel, "relu_kernel");
  EXPECT_EQ(f.launches[0].line, 25);
  EXPECT_EQ(f.launches[0].block_threads, 128);
  EXPECT_EQ(f.launches[1].kernel, "tiled");
  EXPECT_EQ(f.launches[1].block_threads, 256);
  EXPECT_EQ(f.launches[2].block_threads, 512);
  EXPECT_EQ(f.launches[3].kernel, "unknown_block");
  EXPECT_FALSE(f.launches[3].block_threads);
  EXPECT_EQ(f.launches[3].block_expression, "y.size(0)");
  EXPECT_EQ(f.launches[4].block_threads, 128);
  EXPECT_EQ(f.launches[5].block_threads, 64);
}

TEST_F(SourceAnalysis, TorchFormAndForwardNotConfusedWithCalls) {
  const std::string src = R"(#include <torch/extension.h>
torch::Tensor helper(torch::Tensor x) { return model.forward(x); }
torch::Tensor other(torch::Tensor x) { return forward_impl(x); }
struct M { torch::Tensor forward(torch::Tensor x) { return x; } };
torch::Tensor
forward(torch::Tensor x) {
  return helper(x);
}
)";
  auto path = write("t.cu", src);
  SourceFacts f = analyze_kernel_source(path, src);
  ASSERT_TRUE(f.form);
  EXPECT_EQ(*f.form, KernelForm::Torch);
  ASSERT_TRUE(f.forward);
  EXPECT_EQ(f.forward->line, 6) << "a member forward (line 4) is not the entry point";
}

TEST_F(SourceAnalysis, NoFormAndNoForward) {
  const std::string src = "#include <cstdio>\n__global__ void k() {}\n";
  SourceFacts f = analyze_kernel_source(write("n.cu", src), src);
  EXPECT_FALSE(f.form);
  EXPECT_FALSE(f.forward);
  EXPECT_NE(no_form_message().find("hone.h"), std::string::npos);
  EXPECT_NE(no_forward_message(KernelForm::Torch).find("torch::Tensor forward"), std::string::npos);
}

TEST_F(SourceAnalysis, LocalHeaderClosureRelativeToIncluderThenKernelFolder) {
  write("k/common/a.h", "#pragma once\n#include \"b.h\"\n__global__ void from_a(float* y) { y[0] = 1; }\n");
  write("k/common/b.h", "#pragma once\n#include \"shared.h\"\n#include \"a.h\"\n");
  write("k/shared.h", "#pragma once\n#define WIDTH 96\n");
  write("k/unused.h", "#pragma once\n");
  const std::string src =
      "#include \"hone.h\"\n#include \"common/a.h\"\n#include <vector>\n// #include \"unused.h\"\n"
      "void forward(hone::Out<float> y, hone::Stream s) { from_a<<<1, WIDTH, 0, s>>>(y.data()); }\n";
  auto path = write("k/main.cu", src);
  SourceFacts f = analyze_kernel_source(path, src);
  ASSERT_EQ(f.headers.size(), 3u);
  EXPECT_EQ(f.headers[0].path, dir_ / "k/common/a.h");
  EXPECT_EQ(f.headers[1].path, dir_ / "k/common/b.h");
  EXPECT_EQ(f.headers[2].path, dir_ / "k/shared.h") << "not beside b.h, so found in the kernel's folder";
  const GlobalFunction* g = f.find_global("from_a");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->file, dir_ / "k/common/a.h");
  EXPECT_EQ(g->line, 3);
  ASSERT_EQ(f.launches.size(), 1u);
  EXPECT_EQ(f.launches[0].block_threads, 96) << "a #define from a local header is visible";
}

TEST_F(TaskPairingTest, DirectiveStemAndToml) {
  write("tasks/relu_task.py", "class Model: pass\n");
  auto k1 = write("a/relu.cu", "// hone: task=../tasks/relu_task.py\n");
  auto p1 = find_task_for_kernel(k1, read_file(k1));
  ASSERT_TRUE(p1.task) << p1.error.value_or("");
  EXPECT_EQ(*p1.task, dir_ / "tasks/relu_task.py");
  EXPECT_EQ(p1.how, "directive (line 1)");

  write("b/softmax.py", "");
  auto k2 = write("b/softmax.cu", "");
  auto p2 = find_task_for_kernel(k2, "");
  ASSERT_TRUE(p2.task);
  EXPECT_EQ(*p2.task, dir_ / "b/softmax.py");

  write("ws/hone.toml", "[kernels]\n\"sub/gelu_v2.cu\" = \"refs/gelu.py\"\n");
  write("ws/refs/gelu.py", "");
  auto k3 = write("ws/sub/gelu_v2.cu", "");
  auto p3 = find_task_for_kernel(k3, "");
  ASSERT_TRUE(p3.task) << p3.error.value_or("");
  EXPECT_EQ(*p3.task, dir_ / "ws/refs/gelu.py");
  EXPECT_EQ(p3.how, (dir_ / "ws/hone.toml").string());
}

TEST_F(TaskPairingTest, ErrorsNameWhatWasTried) {
  auto k1 = write("a/x.cu", "#include \"hone.h\"\n// hone: task=missing.py\n");
  auto p1 = find_task_for_kernel(k1, read_file(k1));
  EXPECT_FALSE(p1.task);
  ASSERT_TRUE(p1.error);
  EXPECT_NE(p1.error->find(":2:"), std::string::npos) << *p1.error;
  EXPECT_NE(p1.error->find("missing.py"), std::string::npos);

  write("bad/hone.toml", "[kernels\n");
  auto k2 = write("bad/y.cu", "");
  auto p2 = find_task_for_kernel(k2, "");
  ASSERT_TRUE(p2.error);
  EXPECT_NE(p2.error->find("hone.toml:1:"), std::string::npos) << *p2.error;

  auto k3 = write("none/z.cu", "");
  auto p3 = find_task_for_kernel(k3, "");
  EXPECT_FALSE(p3.task);
  EXPECT_FALSE(p3.error);
  ASSERT_FALSE(p3.tried.empty());
  EXPECT_NE(p3.tried[0].find("z.py"), std::string::npos);
}

}  // namespace
}  // namespace hone::toolchain::testing
