// hone: task=../../../tasks/relu.py
// Cheat: the same failed launch (2048 threads per block), but the error is cleared with
// cudaGetLastError so the harness's check finds none; the output is never written.
#include "hone.h"

__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  relu_kernel<<<static_cast<unsigned>((n + 2047) / 2048), 2048, 0, stream>>>(x.data(), out.data(), n);
  (void)cudaGetLastError();
}
