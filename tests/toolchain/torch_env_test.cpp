// The torch finder over real interpreters: the answer is cached on disk, so only the first query
// imports torch; editing torch's version.py invalidates it; an interpreter without torch is named
// in the error. A throwaway `torch` package (a real module on a real Python) plays the
// installation whose version changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "toolchain/torch_env.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using TorchEnvTest = ToolchainTest;

double seconds_of(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST_F(TorchEnvTest, SecondLookupIsServedFromTheDiskCache) {
  ScopedEnv cache("HONE_CACHE_DIR", (dir_ / "cache").c_str());
  TorchEnvLookup first, second;
  double cold = seconds_of([&] { first = find_torch_env(); });
  if (!first.env) GTEST_SKIP() << "no Python with torch here: " << first.error;
  double warm = seconds_of([&] { second = find_torch_env(); });
  ASSERT_TRUE(second.env);
  EXPECT_EQ(second.env->python, first.env->python);
  EXPECT_EQ(second.env->version, first.env->version);
  EXPECT_EQ(second.env->include_dirs, first.env->include_dirs);
  EXPECT_TRUE(std::filesystem::is_directory(first.env->library_dir));
  EXPECT_LT(warm, 0.1) << "cold lookup took " << cold << " s";
}

// A counting interpreter: each start appends a line to starts.log, so the test sees exactly when
// a lookup ran Python and when the disk cache answered.
TEST_F(TorchEnvTest, CachedLookupRunsNoPythonAndAChangedKeyProbesAgain) {
  ScopedEnv cache("HONE_CACHE_DIR", (dir_ / "cache").c_str());
  auto python = find_program("/usr/bin/python3") ? std::optional<std::filesystem::path>("/usr/bin/python3") : find_program("python3");
  ASSERT_TRUE(python);
  write("fake/torch/__init__.py",
        "from . import version\n__version__ = version.__version__\nclass _C:\n    _GLIBCXX_USE_CXX11_ABI = True\n");
  auto version_py = write("fake/torch/version.py", "__version__ = '7.0.0'\ncuda = None\n");
  const auto starts = dir_ / "starts.log";
  const std::string body = "#!/bin/sh\necho start >> " + starts.string() + "\nPYTHONPATH=" + (dir_ / "fake").string() +
                           " exec " + python->string() + " \"$@\"\n";
  auto wrapper = write("bin/python3", body);
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  auto count = [&] {
    std::string text = std::filesystem::exists(starts) ? read_file(starts) : "";
    return std::count(text.begin(), text.end(), '\n');
  };

  ASSERT_TRUE(find_torch_env(wrapper).env);
  EXPECT_EQ(count(), 1);
  for (int i = 0; i < 3; ++i) {
    auto again = find_torch_env(wrapper);
    ASSERT_TRUE(again.env);
    EXPECT_EQ(again.env->version, "7.0.0");
  }
  EXPECT_EQ(count(), 1) << "a cached lookup must not start Python";

  // The interpreter changed (another size and mtime): probed again, once.
  write("bin/python3", body + "# upgraded\n");
  std::filesystem::last_write_time(wrapper, std::filesystem::last_write_time(wrapper) + std::chrono::seconds(5));
  ASSERT_TRUE(find_torch_env(wrapper).env);
  ASSERT_TRUE(find_torch_env(wrapper).env);
  EXPECT_EQ(count(), 2);

  // torch changed under the same interpreter: probed again, and the new answer is cached.
  write("fake/torch/version.py", "__version__ = '7.0.1'\ncuda = None\n");
  std::filesystem::last_write_time(version_py, std::filesystem::last_write_time(version_py) + std::chrono::seconds(5));
  EXPECT_EQ(find_torch_env(wrapper).env->version, "7.0.1");
  EXPECT_EQ(find_torch_env(wrapper).env->version, "7.0.1");
  EXPECT_EQ(count(), 3);
}

TEST_F(TorchEnvTest, VersionEditInvalidatesAndMissingTorchIsExplained) {
  ScopedEnv cache("HONE_CACHE_DIR", (dir_ / "cache").c_str());
  auto python = find_program("/usr/bin/python3") ? std::optional<std::filesystem::path>("/usr/bin/python3") : find_program("python3");
  ASSERT_TRUE(python);
  write("fake/torch/__init__.py",
        "from . import version\n__version__ = version.__version__\nclass _C:\n    _GLIBCXX_USE_CXX11_ABI = False\n");
  auto version_py = write("fake/torch/version.py", "__version__ = '9.9.0'\ncuda = None\n");
  auto wrapper = write("bin/python3", "#!/bin/sh\nPYTHONPATH=" + (dir_ / "fake").string() + " exec " + python->string() + " \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);

  auto a = find_torch_env(wrapper);
  ASSERT_TRUE(a.env) << a.error;
  EXPECT_EQ(a.env->version, "9.9.0");
  EXPECT_FALSE(a.env->cxx11_abi);
  EXPECT_FALSE(a.env->cuda);
  EXPECT_EQ(a.env->torch_dir, dir_ / "fake/torch");
  EXPECT_EQ(a.env->python, wrapper);

  write("fake/torch/version.py", "__version__ = '9.9.1'\ncuda = '13.0'\n");
  std::filesystem::last_write_time(version_py, std::filesystem::last_write_time(version_py) + std::chrono::seconds(5));
  auto b = find_torch_env(wrapper);
  ASSERT_TRUE(b.env) << b.error;
  EXPECT_EQ(b.env->version, "9.9.1") << "a changed version.py must be probed again";
  EXPECT_EQ(b.env->cuda, "13.0");

  // -S drops site-packages: a real interpreter that cannot import torch.
  auto bare = write("bin/bare-python", "#!/bin/sh\nexec " + python->string() + " -S \"$@\"\n");
  std::filesystem::permissions(bare, std::filesystem::perms::owner_all);
  auto c = find_torch_env(bare);
  EXPECT_FALSE(c.env);
  EXPECT_NE(c.error.find(bare.string() + ": no torch module"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("--python"), std::string::npos);

  auto d = find_torch_env(dir_ / "bin/none");
  EXPECT_FALSE(d.env);
  EXPECT_NE(d.error.find("not found"), std::string::npos) << d.error;
}

// A literal's bytes, NULs included.
template <std::size_t N>
std::string with_nuls(const char (&text)[N]) {
  return std::string(text, N - 1);
}

// Importing torch takes seconds: the probe reads the version and CUDA version from version.py and
// the ABI from TorchConfig.cmake (older wheels) or libc10.so's symbols, and never imports torch
// (this package refuses to be imported); with neither file it imports torch for the ABI.
TEST_F(TorchEnvTest, ProbeReadsTheInstallationWithoutImportingTorch) {
  ScopedEnv cache("HONE_CACHE_DIR", (dir_ / "cache").c_str());
  auto python = find_program("/usr/bin/python3") ? std::optional<std::filesystem::path>("/usr/bin/python3") : find_program("python3");
  ASSERT_TRUE(python);
  write("fake/torch/__init__.py", "raise ImportError('the probe imported torch')\n");
  write("fake/torch/version.py", "from typing import Optional\n__version__ = '8.1.0+cu130'\ncuda: Optional[str] = '13.0'\n");
  const auto config = write("fake/torch/share/cmake/Torch/TorchConfig.cmake",
                            "if(CMAKE_SYSTEM_NAME STREQUAL \"Linux\")\n  set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")\nendif()\n");
  auto wrapper = write("bin/python3", "#!/bin/sh\nPYTHONPATH=" + (dir_ / "fake").string() + " exec " + python->string() + " \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);

  auto found = find_torch_env(wrapper);
  ASSERT_TRUE(found.env) << found.error;
  EXPECT_EQ(found.env->version, "8.1.0+cu130");
  EXPECT_EQ(found.env->cuda, "13.0");
  EXPECT_FALSE(found.env->cxx11_abi) << "the ABI comes from TorchConfig.cmake";

  // Newer wheels' TorchConfig.cmake has no ABI line: libc10.so's symbols tell.
  write("fake/torch/share/cmake/Torch/TorchConfig.cmake", "set(TORCH_CXX_FLAGS \"\")\n");
  write("fake/torch/lib/libc10.so", with_nuls("\x7f" "ELF\0\0_ZN3c105ErrorC1ENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\0"));
  std::filesystem::remove_all(dir_ / "cache");
  auto from_lib = find_torch_env(wrapper);
  ASSERT_TRUE(from_lib.env) << from_lib.error;
  EXPECT_TRUE(from_lib.env->cxx11_abi) << "libc10.so names std::__cxx11 types";
  write("fake/torch/lib/libc10.so", with_nuls("\x7f" "ELF\0\0_ZN3c105ErrorC1ESs\0"));
  std::filesystem::remove_all(dir_ / "cache");
  EXPECT_FALSE(find_torch_env(wrapper).env->cxx11_abi) << "the old ABI's std::string is Ss";

  std::filesystem::remove(config);
  std::filesystem::remove(dir_ / "fake/torch/lib/libc10.so");
  std::filesystem::remove_all(dir_ / "cache");
  auto imported = find_torch_env(wrapper);
  EXPECT_FALSE(imported.env) << "without TorchConfig.cmake the probe must import torch for the ABI";
  EXPECT_NE(imported.error.find("the probe imported torch"), std::string::npos) << imported.error;
}

}  // namespace
}  // namespace hone::toolchain::testing
