// tests/runner/harness_gpu_test.cpp: libhone_harness's kernels on a GPU, called directly: the
// read flush folds the buffer into its sink, hone_hold waits for a host write to registered
// memfd memory (and gives up at its timeout), hone_spin lasts as long as asked, hone_marker
// writes its word, hone_mix makes the host's mix. Skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gpu_support.h"
#include "harness.h"
#include "runner_client.h"

namespace hone::runner_test {
namespace {

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA GPU here: scripts/gpu/runner.sh runs this on the H200"

double event_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  return ms * 1000.0;
}

// A registered memfd page: words the host writes and kernels read (and the other way round).
class RegisteredWords {
 public:
  RegisteredWords() {
    EXPECT_EQ(hone_harness_register(arena_.at<void>(), arena_.bytes(), &device_), 0);
  }
  ~RegisteredWords() { hone_harness_unregister(arena_.at<void>()); }
  std::atomic_ref<unsigned> host(int i) const { return std::atomic_ref<unsigned>(arena_.at<unsigned>()[i]); }
  void* device(int i) const { return static_cast<unsigned*>(device_) + i; }

 private:
  MemfdArena arena_{4096};
  void* device_ = nullptr;
};

// hone_harness_flush and hone_harness_flush_l2 (the read without the code eviction) alike.
class HarnessFlush : public ::testing::TestWithParam<int (*)(void*, const void*, size_t, void*)> {};

TEST_P(HarnessFlush, FoldsEveryWordIntoTheSink) {
  REQUIRE_GPU();
  const auto flush = GetParam();
  const std::size_t words = (std::size_t{3} << 20) + 5;
  std::vector<unsigned> host(words);
  unsigned expected = 0;
  for (std::size_t i = 0; i < words; ++i) expected ^= host[i] = static_cast<unsigned>(i * 2654435761u);
  unsigned* buffer = nullptr;
  unsigned* sink = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&buffer), words * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&sink), 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(buffer, host.data(), words * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(sink, 0, 4), cudaSuccess);
  ASSERT_EQ(flush(nullptr, buffer, words * 4, sink), 0);
  unsigned got = 0;
  ASSERT_EQ(cudaMemcpy(&got, sink, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, expected);
  // From the second word on (not 16-byte aligned: the head is read byte by byte).
  ASSERT_EQ(cudaMemset(sink, 0, 4), cudaSuccess);
  ASSERT_EQ(flush(nullptr, buffer + 1, (words - 1) * 4, sink), 0);
  ASSERT_EQ(cudaMemcpy(&got, sink, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, expected ^ host[0]);
  std::vector<unsigned> after(words);
  ASSERT_EQ(cudaMemcpy(after.data(), buffer, words * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(after, host);
  cudaFree(buffer);
  cudaFree(sink);
}

INSTANTIATE_TEST_SUITE_P(BothFlushes, HarnessFlush, ::testing::Values(&hone_harness_flush, &hone_harness_flush_l2),
                         [](const auto& info) { return info.index == 0 ? std::string("CodeEvicted") : std::string("L2Only"); });

TEST(HarnessGpu, HoldWaitsForTheHostsReleaseWord) {
  REQUIRE_GPU();
  RegisteredWords w;
  w.host(0).store(0);
  w.host(1).store(0);
  cudaEvent_t before, after;
  ASSERT_EQ(cudaEventCreate(&before), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&after), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(before, nullptr), cudaSuccess);
  ASSERT_EQ(hone_harness_hold(nullptr, w.device(0), 5'000'000'000ull, w.device(1)), 0);
  ASSERT_EQ(cudaEventRecord(after, nullptr), cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(cudaEventQuery(after), cudaErrorNotReady) << "the hold ended before the release";
  w.host(0).store(1);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(w.host(1).load(), 0u) << "reported a timeout although released";
  const double us = event_us(before, after);
  EXPECT_GE(us, 90'000.0);
  EXPECT_LT(us, 2'000'000.0);
}

TEST(HarnessGpu, HoldEndsAtItsTimeoutAndSaysSo) {
  REQUIRE_GPU();
  RegisteredWords w;
  w.host(0).store(0);
  w.host(1).store(0);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(hone_harness_hold(nullptr, w.device(0), 200'000'000ull, w.device(1)), 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(w.host(1).load(), 1u);
  EXPECT_GE(ms, 190.0);
  EXPECT_LT(ms, 3000.0);
}

TEST(HarnessGpu, SpinLastsAsLongAsAskedAndTheMarkerWritesItsWord) {
  REQUIRE_GPU();
  RegisteredWords w;
  w.host(2).store(0);
  cudaEvent_t before, after;
  ASSERT_EQ(cudaEventCreate(&before), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&after), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(before, nullptr), cudaSuccess);
  ASSERT_EQ(hone_harness_spin(nullptr, 300'000ull), 0);
  ASSERT_EQ(cudaEventRecord(after, nullptr), cudaSuccess);
  ASSERT_EQ(hone_harness_marker(nullptr, w.device(2)), 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double us = event_us(before, after);
  EXPECT_GE(us, 295.0);
  EXPECT_LT(us, 2000.0);
  EXPECT_EQ(w.host(2).load(), 1u);
}

TEST(HarnessGpu, MixOnTheDeviceIsTheHostsMixElementForElement) {
  REQUIRE_GPU();
  const std::size_t bytes = (std::size_t{1} << 22) + 24;  // not a multiple of a block's elements
  std::vector<std::vector<unsigned char>> host(3, std::vector<unsigned char>(bytes));
  for (std::size_t k = 0; k < host.size(); ++k)
    for (std::size_t i = 0; i < bytes; ++i) host[k][i] = static_cast<unsigned char>((i * 131 + k * 97) >> 3);
  std::vector<void*> device(4, nullptr);
  for (void*& d : device) ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
  for (std::size_t k = 0; k < host.size(); ++k)
    ASSERT_EQ(cudaMemcpy(device[k], host[k].data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  const void* device_sets[] = {device[0], device[1], device[2]};
  const void* host_sets[] = {host[0].data(), host[1].data(), host[2].data()};
  for (std::size_t width : {1u, 2u, 4u, 8u}) {
    const std::size_t count = bytes / width;
    ASSERT_EQ(hone_harness_mix(nullptr, device[3], device_sets, 3, width, count, 0xC0FFEEu + width), 0) << width;
    std::vector<unsigned char> expected(bytes), got(bytes);
    ASSERT_EQ(hone_harness_host_mix(expected.data(), host_sets, 3, width, count, 0xC0FFEEu + width), 0);
    ASSERT_EQ(cudaMemcpy(got.data(), device[3], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(got == expected) << "hone_mix differs from the host's mix at element width " << width;
  }
  EXPECT_EQ(hone_harness_mix(nullptr, device[3], device_sets, 3, 3, 8, 1u), 1);  // cudaErrorInvalidValue
  for (void* d : device) cudaFree(d);
}

}  // namespace
}  // namespace hone::runner_test
