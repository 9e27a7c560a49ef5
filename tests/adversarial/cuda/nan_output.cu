// hone: task=../../../tasks/relu.py
// Cheat: writes NaN everywhere.
#include "hone.h"

__global__ void nan_kernel(float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __int_as_float(0x7fc00000);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  nan_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out.data(), n);
}
