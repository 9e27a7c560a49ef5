// hone: task=../tasks/weak_softmax.py
// Passes, but must be flagged: writes zeros whatever the input, which is within the weak task's
// tolerance everywhere.
#include "hone.h"

__global__ void zero_kernel(float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.f;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  zero_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out.data(), n);
}
