// Helpers for the toolchain tests: a private temp folder per test with kernel files written into
// it, a KernelBuilder over the build tree's share folder and a private cache, and the real tools.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "support/hash.h"
#include "support/paths.h"
#include "toolchain/kernel_builder.h"
#include "toolchain/tools.h"

namespace hone::toolchain::testing {

// A temp folder (removed at the end) holding kernels and a private build cache.
class ToolchainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hone-toolchain-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = std::filesystem::path(tmpl);
    std::filesystem::create_directories(dir_ / "cache");
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    auto p = dir_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  KernelBuilder builder() const { return KernelBuilder(share_dir(), dir_ / "cache"); }

  BuildResult build(const std::filesystem::path& kernel, std::optional<std::string> arch = std::nullopt) const {
    BuildRequest r;
    r.kernel = kernel;
    r.arch = arch ? arch : std::optional<std::string>("sm_90");
    return builder().build(r);
  }

  static bool have_nvcc() { return find_nvcc().tool.has_value(); }

  std::filesystem::path dir_;
};

// Sets an environment variable for one scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A raw-form ReLU in three kernels the module id matters for: one in an anonymous namespace and a static one (their device
// names carry the id, and the host registers them by those names), plus a template.
inline constexpr const char* kRawCudaKernels = R"(#include "hone.h"
namespace {
__global__ void relu(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
}  // namespace
static __global__ void fill(float* y, long n, float v) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}
template <int Scale>
__global__ void scale(float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] *= Scale;
}
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  long n = x.numel();
  fill<<<(n + 255) / 256, 256, 0, s>>>(y.data(), n, -1.0f);
  relu<<<(n + 255) / 256, 256, 0, s>>>(x.data(), y.data(), n);
  scale<1><<<(n + 255) / 256, 256, 0, s>>>(y.data(), n);
}
)";

#define HONE_REQUIRE_NVCC() \
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found (install the CUDA toolkit): CUDA builds cannot be tested here"

}  // namespace hone::toolchain::testing
