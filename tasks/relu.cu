// ReLU, raw form: out = max(x, 0). Grid-stride loop with 16-byte loads and stores where the
// pointers allow them, scalar code for the tail.
#include <algorithm>

#include "hone.h"

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n, bool vectorized) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t done = 0;
  if (vectorized) {
    const int64_t n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (int64_t j = i; j < n4; j += stride) {
      float4 v = x4[j];
      v.x = fmaxf(v.x, 0.f);
      v.y = fmaxf(v.y, 0.f);
      v.z = fmaxf(v.z, 0.f);
      v.w = fmaxf(v.w, 0.f);
      out4[j] = v;
    }
    done = n4 * 4;
  }
  for (int64_t j = done + i; j < n; j += stride) out[j] = fmaxf(x[j], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  if (!x.is_contiguous()) throw hone::Error("relu: x must be contiguous");
  const int64_t n = x.numel();
  if (n == 0) return;
  const bool aligned = (reinterpret_cast<uintptr_t>(x.data()) % 16 == 0) && (reinterpret_cast<uintptr_t>(out.data()) % 16 == 0);
  constexpr int threads = 256;
  const int64_t work = aligned ? (n + 3) / 4 : n;
  const int64_t wanted = (work + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < 65535 ? wanted : 65535);
  relu_kernel<<<blocks, threads, 0, stream>>>(x.data(), out.data(), n, aligned);
}
