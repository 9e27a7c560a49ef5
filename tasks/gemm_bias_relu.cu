// relu(x @ W^T + b), raw form: a 32x32 output tile per block; x rows and W rows (both K-major)
// are staged through shared memory in 32-wide slices of K; bias and ReLU are applied in the
// epilogue, so the GEMM result never goes to memory unfused.
#include "hone.h"

constexpr int kTile = 32;
constexpr int kRowsPerThread = 4;

__global__ void gemm_bias_relu_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ out, int64_t m,
                                      int64_t n, int64_t k) {
  __shared__ float xs[kTile][kTile];
  __shared__ float ws[kTile][kTile + 1];  // ws[kk][j] = W[col j][k0 + kk]
  const int tx = threadIdx.x;
  const int ty = threadIdx.y * kRowsPerThread;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  float acc[kRowsPerThread] = {0.f, 0.f, 0.f, 0.f};
  for (int64_t k0 = 0; k0 < k; k0 += kTile) {
    for (int r = 0; r < kRowsPerThread; ++r) {
      const int64_t xr = row0 + ty + r, kc = k0 + tx;
      xs[ty + r][tx] = (xr < m && kc < k) ? x[xr * k + kc] : 0.f;
      const int64_t wr = col0 + ty + r;
      ws[tx][ty + r] = (wr < n && kc < k) ? w[wr * k + kc] : 0.f;
    }
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) {
      const float wv = ws[kk][tx];
      for (int r = 0; r < kRowsPerThread; ++r) acc[r] += xs[ty + r][kk] * wv;
    }
    __syncthreads();
  }
  const int64_t col = col0 + tx;
  if (col >= n) return;
  const float b = bias[col];
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int64_t row = row0 + ty + r;
    if (row < m) out[row * n + col] = fmaxf(acc[r] + b, 0.f);
  }
}

void forward(hone::In<float> x, hone::In<float> linear_weight, hone::In<float> linear_bias, hone::Out<float> out,
             hone::Stream stream) {
  const int64_t m = x.size(0), k = x.size(1), n = linear_weight.size(0);
  if (linear_weight.size(1) != k || linear_bias.numel() != n) throw hone::Error("gemm_bias_relu: shapes do not match");
  if (!x.is_contiguous() || !linear_weight.is_contiguous()) throw hone::Error("gemm_bias_relu: inputs must be contiguous");
  if (m == 0 || n == 0) return;
  const dim3 block(kTile, kTile / kRowsPerThread);
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  gemm_bias_relu_kernel<<<grid, block, 0, stream>>>(x.data(), linear_weight.data(), linear_bias.data(), out.data(), m,
                                                    n, k);
}
