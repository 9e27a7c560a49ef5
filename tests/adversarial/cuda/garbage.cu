// hone: task=../../../tasks/relu.py
// Cheat: returns clock-seeded garbage of a plausible magnitude, different on every call.
#include "hone.h"

__global__ void garbage_kernel(float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = static_cast<unsigned>(clock64()) * 2654435761u + static_cast<unsigned>(i) * 40503u;
  h ^= h >> 13;
  out[i] = static_cast<float>(h & 0xffff) / 32768.f;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  garbage_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out.data(), n);
}
