// wgmma_probe.cu: checks the attention kernel's sm90 building blocks one at a time on a Hopper GPU,
// against float products on the host: S = Q K^T (wgmma, both operands K-major in swizzled shared
// memory, the tile layout of flash_attention_sm90.cuh) and O = P V (P as bf16 register fragments
// taken from the accumulator layout, V MN-major). For O it tries both readings of the MN-major
// descriptor's offsets (LBO across 64-column panels and SBO across 8-row groups, and the reverse)
// and prints which one matches, so a wrong layout shows as which product fails, not as "attention
// is wrong". Build: nvcc -gencode=arch=compute_90a,code=sm_90a -I tasks/attention -I server/include.
#include <cuda_bf16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "flash_attention.cuh"

namespace {

using hone_attention::sm90::descriptor;
using hone_attention::sm90::load_swizzled;

constexpr int kD = 128;

// out (64 x kN) = a (64 x kD) b (kN x kD)^T, one warpgroup.
template <int kN>
__global__ void scores(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  extern __shared__ unsigned char raw[];
  unsigned char* smem = raw + ((1024u - (static_cast<unsigned>(__cvta_generic_to_shared(raw)) & 1023u)) & 1023u);
  unsigned char* a_s = smem;
  unsigned char* b_s = smem + 64 * 2 * 128;
  load_swizzled<kD, 128>(a_s, a, 0, 64, 64);
  load_swizzled<kD, 128>(b_s, b, 0, kN, kN);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  hone_attention::sm90::fence_proxy_async();
  __syncthreads();
  float s[kN / 2];
  hone_attention::sm90::fence();
#pragma unroll
  for (int kc = 0; kc < kD / 16; ++kc)
    hone_attention::sm90::mma_ss<kN>(s, descriptor(a_s + (kc / 4) * 64 * 128 + (kc % 4) * 32, 16, 1024),
                                     descriptor(b_s + (kc / 4) * kN * 128 + (kc % 4) * 32, 16, 1024), kc > 0);
  hone_attention::sm90::commit();
  hone_attention::sm90::wait_all();
  hone_attention::sm90::fence_operands(s);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < kN / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int row = 16 * warp + lane / 4 + 8 * (e / 2), col = 8 * i + 2 * (lane % 4) + e % 2;
      out[row * kN + col] = s[4 * i + e];
    }
}

// out (64 x kD) = p (64 x kN, float, rounded to bf16 fragments) v (kN x kD), one warpgroup.
template <int kN>
__global__ void values(const float* p, const __nv_bfloat16* v, float* out, unsigned lbo, unsigned sbo) {
  extern __shared__ unsigned char raw[];
  unsigned char* v_s = raw + ((1024u - (static_cast<unsigned>(__cvta_generic_to_shared(raw)) & 1023u)) & 1023u);
  load_swizzled<kD, 128>(v_s, v, 0, kN, kN);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  hone_attention::sm90::fence_proxy_async();
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = 16 * warp + lane / 4;
  float o[kD / 2];
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) o[i] = 0.f;
  unsigned frag[kN / 16][4];
#pragma unroll
  for (int kk = 0; kk < kN / 16; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) {  // r: (row r % 2 * 8, columns 8 * (r / 2)) of the 16-key step
      const int row = r0 + 8 * (r % 2), col = 16 * kk + 8 * (r / 2) + 2 * (lane % 4);
      frag[kk][r] = hone_attention::sm90::pack_bf16(p[row * kN + col], p[row * kN + col + 1]);
    }
  hone_attention::sm90::fence_operands(o);
  hone_attention::sm90::fence();
#pragma unroll
  for (int kk = 0; kk < kN / 16; ++kk) hone_attention::sm90::mma_rs<kD>(o, frag[kk], descriptor(v_s + kk * 16 * 128, lbo, sbo));
  hone_attention::sm90::commit();
  hone_attention::sm90::wait_all();
  hone_attention::sm90::fence_operands(o);
#pragma unroll
  for (int i = 0; i < kD / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) out[(r0 + 8 * (e / 2)) * kD + 8 * i + 2 * (lane % 4) + e % 2] = o[4 * i + e];
}

float bf(float x) { return __bfloat162float(__float2bfloat16(x)); }

bool check(const char* what, const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    worst = std::fmax(worst, std::fabs(got[i] - want[i]));
    scale = std::fmax(scale, std::fabs(want[i]));
  }
  const bool ok = worst <= 1e-3 * scale + 1e-3;
  std::printf("%-48s %s (max |error| %.3g, max |value| %.3g)\n", what, ok ? "MATCH" : "WRONG", worst, scale);
  return ok;
}

#define CUDA(x)                                                                          \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("wgmma_probe: %s: %s\n", #x, cudaGetErrorString(e_));                   \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

template <int kN>
int probe(std::mt19937& rng) {
  std::normal_distribution<float> dist;
  std::vector<float> a(64 * kD), b(kN * kD), p(64 * kN);
  for (auto& x : a) x = bf(dist(rng));
  for (auto& x : b) x = bf(dist(rng));
  for (auto& x : p) x = bf(std::fabs(dist(rng)));
  std::vector<__nv_bfloat16> a16(a.begin(), a.end()), b16(b.begin(), b.end());
  __nv_bfloat16 *da, *db;
  float *dp, *dout;
  CUDA(cudaMalloc(&da, a16.size() * 2));
  CUDA(cudaMalloc(&db, b16.size() * 2));
  CUDA(cudaMalloc(&dp, p.size() * 4));
  CUDA(cudaMalloc(&dout, 64 * 256 * 4));
  CUDA(cudaMemcpy(da, a16.data(), a16.size() * 2, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(db, b16.data(), b16.size() * 2, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dp, p.data(), p.size() * 4, cudaMemcpyHostToDevice));
  int failures = 0;

  std::vector<float> want(64 * kN), got(64 * kN);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < kN; ++j) {
      double acc = 0;
      for (int d = 0; d < kD; ++d) acc += double(a[i * kD + d]) * b[j * kD + d];
      want[i * kN + j] = static_cast<float>(acc);
    }
  const int smem = 64 * 256 + kN * 256 + 1024;
  CUDA(cudaFuncSetAttribute(scores<kN>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  scores<kN><<<1, 128, smem>>>(da, db, dout);
  CUDA(cudaDeviceSynchronize());
  CUDA(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
  char what[96];
  std::snprintf(what, sizeof what, "S = Q K^T  (m64n%dk16, K-major, d %d)", kN, kD);
  failures += !check(what, got, want);

  // O = P V with V = b read as (kN keys x kD): the same buffer.
  std::vector<float> want_o(64 * kD), got_o(64 * kD);
  for (int i = 0; i < 64; ++i)
    for (int d = 0; d < kD; ++d) {
      double acc = 0;
      for (int j = 0; j < kN; ++j) acc += double(p[i * kN + j]) * b[j * kD + d];
      want_o[i * kD + d] = static_cast<float>(acc);
    }
  const int vsmem = kN * 256 + 1024;
  CUDA(cudaFuncSetAttribute(values<kN>, cudaFuncAttributeMaxDynamicSharedMemorySize, vsmem));
  const unsigned panel = kN * 128;
  const unsigned offsets[2][2] = {{panel, 1024}, {1024, panel}};
  for (int t = 0; t < 2; ++t) {
    values<kN><<<1, 128, vsmem>>>(dp, db, dout, offsets[t][0], offsets[t][1]);
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaMemcpy(got_o.data(), dout, got_o.size() * 4, cudaMemcpyDeviceToHost));
    std::snprintf(what, sizeof what, "O = P V  (m64n%dk16, MN-major, LBO %u SBO %u)", kD, offsets[t][0], offsets[t][1]);
    const bool ok = check(what, got_o, want_o);
    if (t == 0) failures += !ok;  // the kernel's reading: LBO across panels, SBO across 8-key groups
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dp);
  cudaFree(dout);
  return failures;
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  int failures = probe<64>(rng) + probe<128>(rng);
  std::printf("wgmma_probe: %s\n", failures ? "FAIL (the kernel's layout is wrong where WRONG)" : "PASS");
  return failures ? 1 : 0;
}
