// hone: task=../../../tasks/matmul.py
// Cheat: multiplies in half precision (inputs rounded to fp16, fp16 products), far past the
// fp32 tolerance.
#include <cuda_fp16.h>

#include "hone.h"

__global__ void matmul_half(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  const int64_t row = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  __half acc = __float2half(0.f);
  for (int64_t kk = 0; kk < k; ++kk) acc = __hfma(__float2half(a[row * k + kk]), __float2half(b[kk * n + col]), acc);
  c[row * n + col] = __half2float(acc);
}

void forward(hone::In<float> A, hone::In<float> B, hone::Out<float> out, hone::Stream stream) {
  const int64_t m = A.size(0), k = A.size(1), n = B.size(1);
  const dim3 block(16, 16);
  const dim3 grid(static_cast<unsigned>((n + 15) / 16), static_cast<unsigned>((m + 15) / 16));
  matmul_half<<<grid, block, 0, stream>>>(A.data(), B.data(), out.data(), m, n, k);
}
