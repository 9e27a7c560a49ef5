// Softmax over rows, raw form: one block per row; the row's max and sum are reduced with warp
// shuffles and a small shared array, then each thread writes exp(x - max) / sum for its elements.
#include "hone.h"

constexpr int kThreads = 256;

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Reduces one value per thread over the block; every thread gets the result.
template <bool IsMax>
__device__ float block_reduce(float v, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = IsMax ? warp_max(v) : warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? scratch[lane] : (IsMax ? -INFINITY : 0.f);
  if (warp == 0) v = IsMax ? warp_max(v) : warp_sum(v);
  if (threadIdx.x == 0) scratch[0] = v;
  __syncthreads();
  const float result = scratch[0];
  __syncthreads();
  return result;
}

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t cols) {
  __shared__ float scratch[32];
  const float* row = x + blockIdx.x * cols;
  float* dst = out + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce<true>(m, scratch);
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
  s = block_reduce<false>(s, scratch);
  const float inv = 1.f / s;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = __expf(row[c] - m) * inv;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  if (x.dim() != 2 || !x.is_contiguous()) throw hone::Error("softmax: x must be a contiguous 2-D tensor");
  if (x.size(0) == 0 || x.size(1) == 0) return;
  softmax_kernel<<<static_cast<unsigned>(x.size(0)), kThreads, 0, stream>>>(x.data(), out.data(), x.size(1));
}
