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

#define HONE_REQUIRE_NVCC() \
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found (install the CUDA toolkit): CUDA builds cannot be tested here"

}  // namespace hone::toolchain::testing
