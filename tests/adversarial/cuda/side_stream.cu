// hone: task=../../../tasks/relu.py
// Cheat: launches on its own non-blocking stream and returns without joining the caller's stream,
// so events on the caller's stream time nothing (CUDA-L1's timing flaw); the result is there
// only by luck or after a device-wide synchronisation.
#include "hone.h"

__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  static cudaStream_t side = nullptr;
  if (side == nullptr) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  const int64_t n = x.numel();
  relu_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, side>>>(x.data(), out.data(), n);
}
