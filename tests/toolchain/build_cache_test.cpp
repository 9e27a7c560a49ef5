// The build cache over real builds: hits are fast and identical, what changes a build (source,
// unsaved buffer, local headers, flags, arch) misses, concurrent builds of one key all succeed.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using BuildCacheTest = ToolchainTest;

const char* kRelu = R"(#include "hone.h"
#include "scale.h"
__global__ void relu(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] * kScale : 0;
}
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  long n = x.numel();
  relu<<<(n + 255) / 256, 256, 0, s>>>(x.data(), y.data(), n);
}
)";

TEST_F(BuildCacheTest, HitIsFastAndHeaderEditInvalidates) {
  HONE_REQUIRE_NVCC();
  write("scale.h", "#pragma once\nconstexpr float kScale = 1.0f;\n");
  auto path = write("relu.cu", kRelu);
  BuildResult cold = build(path);
  ASSERT_EQ(cold.outcome, BuildOutcome::Built) << cold.error;
  EXPECT_FALSE(cold.cached);
  EXPECT_TRUE(std::filesystem::is_regular_file(cold.library));

  BuildResult hit = build(path);
  ASSERT_EQ(hit.outcome, BuildOutcome::Built);
  EXPECT_TRUE(hit.cached);
  EXPECT_TRUE(hit.report.cached);
  EXPECT_LT(hit.seconds, 0.2) << "a cached build must take well under 0.2 s";
  EXPECT_EQ(hit.library, cold.library);
  EXPECT_EQ(hit.key, cold.key);
  EXPECT_EQ(hit.report.kernels.size(), 1u);
  EXPECT_EQ(hit.report.kernels[0].registers, cold.report.kernels[0].registers);

  write("scale.h", "#pragma once\nconstexpr float kScale = 2.0f;\n");
  BuildResult edited = build(path);
  ASSERT_EQ(edited.outcome, BuildOutcome::Built) << edited.error;
  EXPECT_FALSE(edited.cached) << "editing a local header must invalidate the build";
  EXPECT_NE(edited.key, cold.key);
  EXPECT_NE(edited.kernel_hash, cold.kernel_hash);
}

TEST_F(BuildCacheTest, UnsavedBufferFlagsAndArchChangeTheKey) {
  write("scale.h", "#pragma once\nconstexpr float kScale = 1.0f;\n");
  auto path = write("relu.cpp", "#include \"hone.h\"\nvoid forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {\n"
                                "  for (long i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] * FACTOR;\n}\n");
  BuildRequest r;
  r.kernel = path;
  r.extra_flags = {"-DFACTOR=2"};
  BuildResult a = builder().build(r);
  ASSERT_EQ(a.outcome, BuildOutcome::Built) << a.error;
  EXPECT_EQ(a.report.arch, "cpu");

  r.extra_flags = {"-DFACTOR=3"};
  BuildResult b = builder().build(r);
  ASSERT_EQ(b.outcome, BuildOutcome::Built);
  EXPECT_FALSE(b.cached);
  EXPECT_NE(a.key, b.key);

  // An unsaved editor buffer is built instead of the file on disk, and keyed by its contents.
  r.contents = "#include \"hone.h\"\nvoid forward(hone::Out<float> y, hone::Stream) { y.data()[0] = FACTOR; }\n";
  BuildResult unsaved = builder().build(r);
  ASSERT_EQ(unsaved.outcome, BuildOutcome::Built) << unsaved.error;
  EXPECT_NE(unsaved.key, b.key);
  r.contents = "#include \"hone.h\"\nvoid forward(hone::Out<float> y, hone::Stream) { y.data()[0] = FACTOR }\n";
  BuildResult broken = builder().build(r);
  EXPECT_EQ(broken.outcome, BuildOutcome::CompileError);
  ASSERT_FALSE(broken.report.diagnostics.empty());
  EXPECT_EQ(broken.report.diagnostics[0].file, path.string()) << "an unsaved buffer's errors name the user's file";
  EXPECT_EQ(broken.report.diagnostics[0].line, 2);
  // A failed build is cached too: the same broken buffer answers at once.
  BuildResult broken_again = builder().build(r);
  EXPECT_TRUE(broken_again.cached);
  EXPECT_EQ(broken_again.outcome, BuildOutcome::CompileError);
  EXPECT_EQ(broken_again.report.diagnostics.size(), broken.report.diagnostics.size());

  if (have_nvcc()) {
    auto cu = write("k.cu", "#include \"hone.h\"\n__global__ void k(float* y) { y[0] = 1; }\n"
                            "void forward(hone::Out<float> y, hone::Stream s) { k<<<1, 1, 0, s>>>(y.data()); }\n");
    BuildResult sm90 = build(cu, std::string("sm_90"));
    BuildResult sm80 = build(cu, std::string("sm_80"));
    ASSERT_EQ(sm90.outcome, BuildOutcome::Built) << sm90.error;
    ASSERT_EQ(sm80.outcome, BuildOutcome::Built) << sm80.error;
    EXPECT_NE(sm90.key, sm80.key);
    EXPECT_EQ(sm80.report.arch, "sm_80");
    ASSERT_TRUE(sm80.report.kernels[0].occupancy);
  }
}

TEST_F(BuildCacheTest, ConcurrentBuildsOfOneKeyAllSucceed) {
  auto path = write("same.cpp", "#include \"hone.h\"\nvoid forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {\n"
                                "  for (long i = 0; i < x.numel(); ++i) y.data()[i] = -x.data()[i];\n}\n");
  std::vector<BuildResult> results(3);
  std::vector<std::thread> threads;
  for (auto& res : results)
    threads.emplace_back([&, p = &res] { *p = build(path); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) {
    ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
    EXPECT_EQ(r.library, results[0].library);
    EXPECT_TRUE(std::filesystem::is_regular_file(r.library));
  }
  // No work folders are left behind.
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "cache" / "build"))
    EXPECT_EQ(e.path().filename().string().rfind(".work-", 0), std::string::npos) << e.path();
}

}  // namespace
}  // namespace hone::toolchain::testing
