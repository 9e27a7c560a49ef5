// Matrix multiplication, raw form: 32x32 output tiles per block, A and B staged through shared
// memory in 32x32 slices; each thread computes 4 outputs of its tile column (256 threads).
#include "hone.h"

constexpr int kTile = 32;
constexpr int kRowsPerThread = 4;

__global__ void matmul_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              int64_t m, int64_t n, int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];
  const int tx = threadIdx.x;                   // column within the tile
  const int ty = threadIdx.y * kRowsPerThread;  // first of this thread's rows within the tile
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float acc[kRowsPerThread] = {0.f, 0.f, 0.f, 0.f};
  for (int64_t k0 = 0; k0 < k; k0 += kTile) {
    for (int r = 0; r < kRowsPerThread; ++r) {
      const int64_t ar = row0 + ty + r, ac = k0 + tx;
      as[ty + r][tx] = (ar < m && ac < k) ? a[ar * k + ac] : 0.f;
      const int64_t br = k0 + ty + r;
      bs[ty + r][tx] = (br < k && col < n) ? b[br * n + col] : 0.f;
    }
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) {
      const float bv = bs[kk][tx];
      for (int r = 0; r < kRowsPerThread; ++r) acc[r] += as[ty + r][kk] * bv;
    }
    __syncthreads();
  }
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int64_t row = row0 + ty + r;
    if (row < m && col < n) c[row * n + col] = acc[r];
  }
}

void forward(hone::In<float> A, hone::In<float> B, hone::Out<float> out, hone::Stream stream) {
  if (A.dim() != 2 || B.dim() != 2 || A.size(1) != B.size(0)) throw hone::Error("matmul: shapes do not chain");
  if (!A.is_contiguous() || !B.is_contiguous()) throw hone::Error("matmul: A and B must be contiguous");
  const int64_t m = A.size(0), k = A.size(1), n = B.size(1);
  if (m == 0 || n == 0) return;
  const dim3 block(kTile, kTile / kRowsPerThread);
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  matmul_kernel<<<grid, block, 0, stream>>>(A.data(), B.data(), out.data(), m, n, k);
}
