// tests/runner/kernels/scale.cpp: a raw-form CPU kernel for hone-runner's tests: busy-waits
// busy_us microseconds, then writes out = x * scale (x in any strided layout, out row-major), so
// a test can read in each output slot exactly what the call saw.
#include <chrono>

#include "hone.h"

void forward(hone::In<float> x, double scale, int64_t busy_us, hone::Out<float> out, hone::Stream) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(busy_us);
  while (std::chrono::steady_clock::now() < until) {
  }
  if (out.numel() != x.numel()) throw hone::Error("scale: out and x differ in size");
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, offset = 0;
    for (int d = x.dim() - 1; d >= 0; --d) {
      offset += (rest % x.size(d)) * x.stride(d);
      rest /= x.size(d);
    }
    out.data()[i] = static_cast<float>(x.data()[offset] * scale);
  }
}
