// tests/runner/harness_test.cpp: libhone_harness's C ABI where there is no GPU: the version, the
// host flush, the host mix of a timed call's fresh input, and the CUDA functions failing with a code and a message instead of crashing.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace {

TEST(Harness, VersionAndBuild) {
  EXPECT_EQ(hone_harness_version(), 5);  // 5: hone_harness_host_evict
  EXPECT_EQ(hone_harness_has_cuda(), HONE_TEST_HARNESS_HAS_CUDA);
}

// The kernel prologue's flush: no arguments are a clear error (CUDA: invalid value; a CPU build:
// not supported), never a crash.
TEST(Harness, FlushPrologueWithoutArgumentsIsAnError) {
  EXPECT_NE(hone_harness_flush_prologue(nullptr, nullptr), 0);
  char text[256];
  EXPECT_NE(hone_harness_last_error(text, sizeof text), 0);
  EXPECT_NE(std::string(text), "");
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

// Eviction writes back what it evicts: the bytes read the same after, at any alignment and length.
TEST(Harness, HostEvictKeepsTheBytesItEvicts) {
  std::vector<unsigned char> buffer(5 * 64 + 13);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<unsigned char>(i * 13 + 1);
  const std::vector<unsigned char> before = buffer;
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_EQ(hone_harness_host_evict(buffer.data() + 3, buffer.size() - 3), 0);
  EXPECT_EQ(hone_harness_host_evict(buffer.data(), 0), 0);
  EXPECT_EQ(hone_harness_host_evict(nullptr, 0), 0);  // the runners' probe of support
#else
  EXPECT_EQ(hone_harness_host_evict(buffer.data(), buffer.size()), EOPNOTSUPP);
#endif
  EXPECT_EQ(buffer, before);
}

TEST(Harness, HostMixTakesEachElementFromTheSetItsHashChooses) {
  constexpr std::size_t kCount = 10000;
  std::vector<std::uint32_t> a(kCount), b(kCount), c(kCount), out(kCount, 0);
  for (std::size_t i = 0; i < kCount; ++i) {
    a[i] = 0x10000000u + static_cast<std::uint32_t>(i);
    b[i] = 0x20000000u + static_cast<std::uint32_t>(i);
    c[i] = 0x30000000u + static_cast<std::uint32_t>(i);
  }
  const void* sets[] = {a.data(), b.data(), c.data()};
  ASSERT_EQ(hone_harness_host_mix(out.data(), sets, 3, 4, kCount, 1234u), 0);
  std::size_t from[3] = {0, 0, 0}, same_row = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    const unsigned k = hone_harness_mix_choice(1234u, i) % 3;
    ASSERT_EQ(out[i], static_cast<const std::uint32_t*>(sets[k])[i]) << "element " << i;
    ++from[k];
    if (i % 100 != 0 && (out[i] >> 28) == (out[i - 1] >> 28)) ++same_row;
  }
  for (std::size_t n : from) EXPECT_NEAR(static_cast<double>(n) / kCount, 1.0 / 3, 0.03);  // every set, evenly
  EXPECT_NEAR(static_cast<double>(same_row) / (kCount - kCount / 100), 1.0 / 3, 0.03);     // neighbours independent
  // Another seed is another input, as whole and element by element.
  std::vector<std::uint32_t> other(kCount, 0);
  ASSERT_EQ(hone_harness_host_mix(other.data(), sets, 3, 4, kCount, 1235u), 0);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < kCount; ++i) differ += other[i] != out[i];
  EXPECT_NEAR(static_cast<double>(differ) / kCount, 2.0 / 3, 0.03);
}

TEST(Harness, HostMixCopiesEveryElementWidthAndRefusesBadArguments) {
  std::vector<std::uint8_t> x(64), y(64);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<std::uint8_t>(i);
    y[i] = static_cast<std::uint8_t>(200 + i % 50);
  }
  const void* sets[] = {x.data(), y.data()};
  for (std::size_t width : {1u, 2u, 4u, 8u}) {
    std::vector<std::uint8_t> out(64, 0xAB);
    const std::size_t count = 64 / width;
    ASSERT_EQ(hone_harness_host_mix(out.data(), sets, 2, width, count, 7u), 0) << width;
    for (std::size_t e = 0; e < count; ++e) {
      const auto* from = static_cast<const std::uint8_t*>(sets[hone_harness_mix_choice(7u, e) % 2]);
      EXPECT_EQ(std::memcmp(out.data() + e * width, from + e * width, width), 0) << "width " << width << " element " << e;
    }
  }
  std::uint8_t out[8];
  EXPECT_NE(hone_harness_host_mix(out, sets, 0, 1, 8, 1u), 0);
  EXPECT_NE(hone_harness_host_mix(out, sets, 9, 1, 8, 1u), 0);
  EXPECT_NE(hone_harness_host_mix(out, sets, 2, 3, 2, 1u), 0);
  EXPECT_NE(hone_harness_host_mix(nullptr, sets, 2, 1, 8, 1u), 0);
  const void* missing[] = {x.data(), nullptr};
  EXPECT_NE(hone_harness_host_mix(out, missing, 2, 1, 8, 1u), 0);
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
  EXPECT_NE(hone_harness_flush_l2(nullptr, &word, sizeof word, &word), 0);
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
