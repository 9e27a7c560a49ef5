// tests/runner/harness_test.cpp: libhone_harness's C ABI where there is no GPU: the version, the
// host flush, and the CUDA functions failing with a code and a message instead of crashing.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace {

TEST(Harness, VersionAndBuild) {
  EXPECT_EQ(hone_harness_version(), 1);
  EXPECT_EQ(hone_harness_has_cuda(), HONE_TEST_HARNESS_HAS_CUDA);
}

TEST(Harness, HostFlushReadsWithoutWriting) {
  std::vector<unsigned char> buffer(3 * 64 + 7);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<unsigned char>(i * 7);
  const std::vector<unsigned char> before = buffer;
  hone_harness_host_flush(buffer.data(), buffer.size());
  hone_harness_host_flush(buffer.data(), 0);
  hone_harness_host_flush(buffer.data() + 1, 1);
  EXPECT_EQ(buffer, before);
}

TEST(Harness, NoErrorYetOnAFreshThread) {
  std::thread([] {
    char text[64] = "x";
    EXPECT_EQ(hone_harness_last_error(text, sizeof text), 0);
    EXPECT_STREQ(text, "");
  }).join();
}

TEST(Harness, WithoutAGpuTheCudaFunctionsReturnACodeAndAMessage) {
  if (hone_harness_spin(nullptr, 0) == 0) GTEST_SKIP() << "a CUDA GPU is present: runner_gpu_tests covers the kernels";
  unsigned word = 0;
  void* device = nullptr;
  EXPECT_NE(hone_harness_marker(nullptr, &word), 0);
  EXPECT_NE(hone_harness_hold(nullptr, &word, 1000, &word), 0);
  EXPECT_NE(hone_harness_flush(nullptr, &word, sizeof word, &word), 0);
  EXPECT_NE(hone_harness_register(&word, sizeof word, &device), 0);
  EXPECT_EQ(device, nullptr);
  EXPECT_EQ(word, 0u);
  char text[256];
  EXPECT_NE(hone_harness_last_error(text, sizeof text), 0);
  EXPECT_EQ(std::string(text).rfind("cudaError", 0), 0u) << text;
}

TEST(Harness, NullArgumentsAreInvalidValues) {
  if (!hone_harness_has_cuda()) GTEST_SKIP() << "built without CUDA";
  EXPECT_EQ(hone_harness_marker(nullptr, nullptr), 1);  // cudaErrorInvalidValue
  EXPECT_EQ(hone_harness_hold(nullptr, nullptr, 0, nullptr), 1);
  EXPECT_EQ(hone_harness_register(nullptr, 0, nullptr), 1);
}

}  // namespace
