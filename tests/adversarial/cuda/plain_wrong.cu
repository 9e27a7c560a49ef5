// hone: task=../../../tasks/relu.py
// A plainly wrong kernel (a copy of x, no ReLU), checked right after each tamperer in the same
// judge: it must be incorrect, whatever the tamperer before it left behind.
#include "hone.h"

__global__ void copy_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  copy_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
