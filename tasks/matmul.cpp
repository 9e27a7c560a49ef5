// Matrix multiplication, raw form for the CPU device: i-k-j loop order over 64-wide blocks of k,
// so the inner loop streams a row of B and a row of C and vectorises.
#include <algorithm>

#include "hone.h"

void forward(hone::In<float> A, hone::In<float> B, hone::Out<float> out, hone::Stream) {
  if (A.dim() != 2 || B.dim() != 2 || A.size(1) != B.size(0)) throw hone::Error("matmul: shapes do not chain");
  if (!A.is_contiguous() || !B.is_contiguous()) throw hone::Error("matmul: A and B must be contiguous");
  const int64_t m = A.size(0), k = A.size(1), n = B.size(1);
  const float* a = A.data();
  const float* b = B.data();
  float* c = out.data();
  std::fill(c, c + m * n, 0.f);
  constexpr int64_t kBlock = 64;
  for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
    const int64_t k1 = std::min(k, k0 + kBlock);
    for (int64_t i = 0; i < m; ++i) {
      float* crow = c + i * n;
      for (int64_t kk = k0; kk < k1; ++kk) {
        const float av = a[i * k + kk];
        const float* brow = b + kk * n;
        for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      }
    }
  }
}
