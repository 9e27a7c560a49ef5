// A correct raw-form CUDA ReLU, for the GPU path (and the "no GPU here" error on CPU machines).
// hone: task=relu_small.py
#include "hone.h"

__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = x[i] > 0.f ? x[i] : 0.f;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  int64_t n = x.numel();
  int threads = 256;
  int blocks = static_cast<int>((n + threads - 1) / threads);
  relu_kernel<<<blocks, threads, 0, stream>>>(x.data(), out.data(), n);
}
