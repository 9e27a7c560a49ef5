// hone: task=../../../tasks/relu.py
// Cheat: its grid covers only the first half of the output.
#include "hone.h"

__global__ void relu_half(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t half = x.numel() / 2;
  relu_half<<<static_cast<unsigned>((half + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), half);
}
