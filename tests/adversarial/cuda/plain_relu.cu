// hone: task=../../../tasks/relu.py
// A plainly correct kernel, checked right after each tamperer in the same judge: it must pass.
#include "hone.h"

__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  relu_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
