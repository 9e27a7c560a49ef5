// The elementwise chain of tune_chain.py, raw form for the CPU device, for hone's tuner: the five
// ops run one after another over blocks of BLOCK elements of the output. The starting BLOCK (the
// whole 4096 x 1024 tensor) is eager PyTorch's schedule without its allocations: five passes over
// 16 MB, each streaming from memory. A block that fits in the core's caches makes the four later
// passes cache hits, so the chain costs about one read of x and one write of out.
#include <algorithm>

#include "hone.h"

constexpr int64_t BLOCK = 4194304;  // hone: tune BLOCK=4194304,65536,8192,2048,512

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  if (!x.is_contiguous()) throw hone::Error("tune_chain: x must be contiguous");
  const float* __restrict in = x.data();
  float* __restrict o = out.data();
  const int64_t n = x.numel();
  for (int64_t b = 0; b < n; b += BLOCK) {
    const int64_t e = std::min(n, b + BLOCK);
    for (int64_t i = b; i < e; ++i) o[i] = in[i] * 1.5f;
    for (int64_t i = b; i < e; ++i) o[i] = o[i] + 0.25f;
    for (int64_t i = b; i < e; ++i) o[i] = std::min(std::max(o[i], -2.0f), 2.0f);
    for (int64_t i = b; i < e; ++i) o[i] = o[i] * o[i];
    for (int64_t i = b; i < e; ++i) o[i] = o[i] + in[i];
  }
}
