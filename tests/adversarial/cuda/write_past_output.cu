// hone: task=../../../tasks/relu.py
// A bug, not a cheat: the grid is rounded up to whole blocks and the kernel has no bounds check,
// so its last block writes past the output's end (a size that is no multiple of the block).
#include "hone.h"

__global__ void relu_unmasked(const float* x, float* out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[i] = 0.f;
  (void)x;
}

__global__ void relu(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  // One extra block of 256 past the last element, then the real values over the buffer.
  relu_unmasked<<<static_cast<unsigned>(n / 256 + 1), 256, 0, stream>>>(x.data(), out.data());
  relu<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
