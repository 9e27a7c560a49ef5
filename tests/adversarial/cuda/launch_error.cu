// hone: task=../../../tasks/relu.py
// Fault: launches with 2048 threads per block (the limit is 1024), so nothing runs, and does not
// check for the error; a harness that never asks CUDA for launch errors compares stale memory.
// CUDA 13 reports this launch as cudaErrorInvalidValue ("invalid argument"; seen on the H200),
// not the cudaErrorInvalidConfiguration of older toolkits.
#include "hone.h"

__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  relu_kernel<<<static_cast<unsigned>((n + 2047) / 2048), 2048, 0, stream>>>(x.data(), out.data(), n);
}
