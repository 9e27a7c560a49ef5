// Strided gather, raw form: out[i] = x[8 i], one float per 32-byte sector per thread, so the
// profiler must report 12.5% load coalescing and suggest coalescing. Used by scripts/gpu/profile.sh.
#include "hone.h"

__global__ void strided_gather(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i * 8];
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = out.numel();
  const int threads = 256;
  strided_gather<<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(x.data(), out.data(), n);
}
