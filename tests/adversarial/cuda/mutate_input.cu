// hone: task=../../../tasks/relu.py
// Cheat: computes in place in its input, then copies it to the output.
#include "hone.h"

__global__ void relu_in_place(float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaxf(x[i], 0.f);
    out[i] = x[i];
  }
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  relu_in_place<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(const_cast<float*>(x.data()), out.data(), n);
}
