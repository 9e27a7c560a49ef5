// tests/runner/kernels/cuda_scale.cu: a raw-form CUDA kernel for hone-runner's GPU tests: out =
// x * scale (contiguous), each block first spinning spin_ns of %globaltimer (a kernel of a known
// duration), launched on the stream forward is given.
#include "hone.h"

namespace {

__global__ void scale_kernel(const float* x, float* out, long n, float scale, long long spin_ns) {
  if (spin_ns > 0 && threadIdx.x == 0) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < static_cast<unsigned long long>(spin_ns));
  }
  __syncthreads();
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n; i += static_cast<long>(gridDim.x) * blockDim.x)
    out[i] = x[i] * scale;
}

}  // namespace

void forward(hone::In<float> x, double scale, int64_t spin_ns, hone::Out<float> out, hone::Stream stream) {
  if (!x.is_contiguous() || x.numel() != out.numel()) throw hone::Error("cuda_scale: x must be contiguous and as large as out");
  const long n = static_cast<long>(x.numel());
  const int blocks = static_cast<int>(n / 256 + 1 < 1024 ? n / 256 + 1 : 1024);
  scale_kernel<<<blocks, 256, 0, stream>>>(x.data(), out.data(), n, static_cast<float>(scale), spin_ns);
}
