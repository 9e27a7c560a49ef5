// tests/runner/kernels/cuda_faults.cu: a raw-form CUDA kernel that fails on purpose: mode 0 an
// invalid launch configuration (raw code 2), mode 1 a write to an illegal address (a sticky error).
#include "hone.h"

namespace {

__global__ void fault_kernel(float* out, float* wild) {
  if (wild) *wild = 1.0f;
  out[threadIdx.x] = 0.0f;
}

}  // namespace

void forward(hone::In<float>, int64_t mode, hone::Out<float> out, hone::Stream stream) {
  if (mode == 0) {
    fault_kernel<<<1, 4096, 0, stream>>>(out.data(), nullptr);
  } else {
    fault_kernel<<<1, 1, 0, stream>>>(out.data(), reinterpret_cast<float*>(0x10));
  }
}
