// tests/runner/kernels/input_age.cpp: a raw-form CPU kernel for the runners' tests of the host
// loop's order. A thread of its own watches x[0] (a runner's targets stay at one address) and
// stamps when it first saw each new value; forward writes out = x, then out[0] = the microseconds
// since this call's x[0] was first seen (0 when the thread has not seen it yet): how long the
// call's input sat where the kernel's own threads could read it before forward was called.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

#include "hone.h"

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<const float*> g_x{nullptr};
std::atomic<std::uint32_t> g_seen_bits{0};
std::atomic<std::int64_t> g_seen_at_ns{0};

std::uint32_t bits(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void watch() {
  for (;;) {
    const std::uint32_t value = bits(*static_cast<const volatile float*>(g_x.load()));
    if (value != g_seen_bits.load()) {
      g_seen_at_ns.store(now_ns());
      g_seen_bits.store(value);
    }
    std::this_thread::yield();
  }
}

}  // namespace

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const std::int64_t called = now_ns();
  if (out.numel() != x.numel() || x.numel() == 0) throw hone::Error("input_age: out and x differ in size");
  if (g_x.exchange(x.data()) == nullptr) std::thread(watch).detach();
  const bool seen = g_seen_bits.load() == bits(x.data()[0]);
  const double age_us = seen ? static_cast<double>(called - g_seen_at_ns.load()) / 1000.0 : 0.0;
  std::memcpy(out.data(), x.data(), sizeof(float) * static_cast<std::size_t>(x.numel()));
  out.data()[0] = static_cast<float>(age_us);
}
