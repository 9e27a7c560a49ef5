// hone: task=../../../tasks/relu.py
// Fault: writes far out of bounds, an illegal address that poisons the CUDA context; the worker
// must report it and be restarted.
#include "hone.h"

__global__ void wild_kernel(float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i + (int64_t{1} << 40)] = 1.f;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  wild_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out.data(), n);
}
