// relu(x @ W^T + b), raw form for the CPU device: each output is a dot product of a row of x and
// a row of W (both contiguous in K, so the inner loop vectorises), then bias and ReLU.
#include "hone.h"

void forward(hone::In<float> x, hone::In<float> linear_weight, hone::In<float> linear_bias, hone::Out<float> out,
             hone::Stream) {
  const int64_t m = x.size(0), k = x.size(1), n = linear_weight.size(0);
  if (linear_weight.size(1) != k || linear_bias.numel() != n) throw hone::Error("gemm_bias_relu: shapes do not match");
  if (!x.is_contiguous() || !linear_weight.is_contiguous()) throw hone::Error("gemm_bias_relu: inputs must be contiguous");
  const float* xs = x.data();
  const float* w = linear_weight.data();
  const float* b = linear_bias.data();
  float* o = out.data();
  for (int64_t i = 0; i < m; ++i) {
    const float* xrow = xs + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const float* wrow = w + j * k;
      float acc = 0.f;
      for (int64_t kk = 0; kk < k; ++kk) acc += xrow[kk] * wrow[kk];
      acc += b[j];
      o[i * n + j] = acc > 0.f ? acc : 0.f;
    }
  }
}
