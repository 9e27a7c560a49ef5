// tests/adversarial/cpu/matmul_loop.h: tasks/matmul.cpp's loop (i-k-j over 64-wide blocks of k),
// for the cheats of this folder that compute A @ B on a thread of their own.
#pragma once

#include <cstdint>
#include <cstring>

inline void multiply(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  std::memset(c, 0, sizeof(float) * m * n);
  for (int64_t k0 = 0; k0 < k; k0 += 64) {
    const int64_t k1 = k0 + 64 < k ? k0 + 64 : k;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = k0; kk < k1; ++kk) {
        const float av = a[i * k + kk];
        for (int64_t j = 0; j < n; ++j) c[i * n + j] += av * b[kk * n + j];
      }
  }
}
