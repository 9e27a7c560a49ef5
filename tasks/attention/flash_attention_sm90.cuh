// flash_attention_sm90.cuh: the Hopper path of flash_attention.cuh for bf16 (built for sm_90a,
// which hone picks on a 9.0 GPU). Each warpgroup (4 warps) owns 64 query rows; per key tile it
// computes S = Q K^T with wgmma from shared memory into registers, applies the variant's hooks and
// the online base-2 softmax there, rounds P to bf16 in registers (the accumulator layout of S is
// the register layout of wgmma's A operand) and accumulates O += P V with wgmma, O in registers.
// Nothing goes through shared memory but Q, K and V, stored in 128-byte-swizzled panels of 64
// columns (the layout wgmma's descriptors name), K and V streamed through a cp.async ring of
// STAGES slots shared by the block's warpgroups. Same hooks and knobs as the WMMA path: WARPS / 4
// warpgroups, BLOCK_N keys a tile, STAGES slots.
#pragma once

#if !defined(HONE_ATTENTION_EMULATION)  // tests/attention/emulation runs this file on the host
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#endif

#include <cmath>
#include <cstdint>

#include "wgmma_ops.cuh"

namespace hone_attention::sm90 {

// Whether this build's machine code has the wgmma bodies (the sm_90a pass), read from the device.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(HONE_ATTENTION_EMULATION)
static __device__ int built_for_sm90a = 1;
#else
static __device__ int built_for_sm90a = 0;
#endif

template <int kD, int kGroups, int kBlockN, int kStages>
struct Layout {
  static constexpr int kBlockM = 64 * kGroups;
  static constexpr int kThreads = 128 * kGroups;
  static constexpr int kPanels = kD / 64;  // 64 bf16 columns (128 bytes) a panel
  static constexpr std::size_t kQBytes = std::size_t(kPanels) * kBlockM * 128;
  static constexpr std::size_t kTileBytes = std::size_t(kPanels) * kBlockN * 128;
  static constexpr std::size_t kK = kQBytes;
  static constexpr std::size_t kV = kK + kStages * kTileBytes;
  static constexpr std::size_t kBytes = kV + kStages * kTileBytes + 1024;  // + room to align the base to 1024

  static_assert(kD % 64 == 0, "the sm90 path takes head_dim 64 or 128");
  static_assert(kBlockN == 32 || kBlockN == 64 || kBlockN == 128, "the sm90 path takes BLOCK_N 32, 64 or 128");
  static_assert(kStages >= 1 && kStages <= 4, "STAGES must be 1 to 4");
};

// A shared-memory matrix descriptor with 128-byte swizzling: start address, leading and stride
// byte offsets (each in 16-byte units).
__device__ __forceinline__ std::uint64_t descriptor(const void* p, unsigned lbo, unsigned sbo) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  return static_cast<std::uint64_t>((a & 0x3FFFFu) >> 4) | (static_cast<std::uint64_t>(lbo >> 4) << 16) |
         (static_cast<std::uint64_t>(sbo >> 4) << 32) | (1ull << 62);
}

// Copies `rows` rows of kD bf16 starting at global row `row0` (of `limit` valid rows) into
// swizzled panels: element (r, c) lands in panel c / 64 (panels `rows` * 128 bytes apart) at byte
// r * 128 + (((c % 64) / 8) ^ (r % 8)) * 16 + (c % 8) * 2. Rows past `limit` are zero-filled.
template <int kD, int kThreads>
__device__ __forceinline__ void load_swizzled(unsigned char* dst, const __nv_bfloat16* src, int row0, int rows,
                                              int limit) {
  constexpr int kChunks = kD / 8;  // 16-byte chunks a row
  for (int c = threadIdx.x; c < rows * kChunks; c += kThreads) {
    const int r = c / kChunks, ch = c % kChunks;
    unsigned char* d = dst + (ch / 8) * rows * 128 + r * 128 + (((ch % 8) ^ (r % 8)) * 16);
    if (row0 + r < limit)
      __pipeline_memcpy_async(d, src + static_cast<std::int64_t>(row0 + r) * kD + ch * 8, 16);
    else
      *reinterpret_cast<uint4*>(d) = make_uint4(0u, 0u, 0u, 0u);
  }
}

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

// The hooks and the online softmax on one tile's scores in registers. Thread layout of a 64 x N
// accumulator: warp w of the group holds rows 16w..16w+15; element 4i+e (e = 0, 1) is row
// 16w + lane/4, column 8i + 2(lane%4) + e, and element 4i+2+e is the row 8 below. The row's max
// is shared by the 4 lanes of a quad; each lane keeps its own partial sum.
template <int kBlockN, class V>
__device__ __forceinline__ void softmax_tile(float (&s)[kBlockN / 2], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                             const V& variant, int b, int h, const int (&q_idx)[2], int kv0, int seq_k,
                                             float qk_scale) {
  float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int row = e / 2, kv = kv0 + 8 * i + (e % 2);
      float x = variant.score_mod(s[4 * i + e] * qk_scale, b, h, q_idx[row], kv);
      if (kv >= seq_k || !variant.mask_mod(b, h, q_idx[row], kv)) x = -INFINITY;
      s[4 * i + e] = x;
      mx[row] = fmaxf(mx[row], x);
    }
  float m_use[2];
#pragma unroll
  for (int row = 0; row < 2; ++row) {
    mx[row] = fmaxf(mx[row], __shfl_xor_sync(0xffffffffu, mx[row], 1));
    mx[row] = fmaxf(mx[row], __shfl_xor_sync(0xffffffffu, mx[row], 2));
    const float m_new = fmaxf(m[row], mx[row]);
    m_use[row] = m_new == -INFINITY ? 0.f : m_new;  // a row with every key masked so far
    alpha[row] = exp2f(m[row] - m_use[row]);
    m[row] = m_new;
  }
  float sum[2] = {0.f, 0.f};
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float p = exp2f(s[4 * i + e] - m_use[e / 2]);
      s[4 * i + e] = p;
      sum[e / 2] += p;
    }
  l[0] = l[0] * alpha[0] + sum[0];
  l[1] = l[1] * alpha[1] + sum[1];
}

template <int kD, int kGroups, int kBlockN, int kStages, class V>
__global__ void __launch_bounds__(128 * kGroups)
    attention_kernel_sm90(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                          const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ out, int heads, int seq_q,
                          int seq_k, float qk_scale, V variant) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(HONE_ATTENTION_EMULATION)
  using L = Layout<kD, kGroups, kBlockN, kStages>;
  unsigned char* smem_raw = shared_base();
  const unsigned raw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  unsigned char* smem = smem_raw + ((1024u - (raw & 1023u)) & 1023u);  // swizzle atoms sit on 1024-byte lines
  unsigned char* q_s = smem;
  unsigned char* k_s = smem + L::kK;
  unsigned char* v_s = smem + L::kV;
  const int group = threadIdx.x / 128, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;

  const int bh = blockIdx.y, b = bh / heads, h = bh % heads;
  const int q0 = (gridDim.x - 1 - blockIdx.x) * L::kBlockM;  // the longest causal rows start first
  const __nv_bfloat16* k_g = k + static_cast<std::int64_t>(bh) * seq_k * kD;
  const __nv_bfloat16* v_g = v + static_cast<std::int64_t>(bh) * seq_k * kD;
  const KeyTiles kt = key_tiles(variant, q0, L::kBlockM, seq_q, seq_k, kBlockN);
  const int tile0 = kt.first, tiles = kt.count;
  const int gq0 = q0 + 64 * group, rows = min(seq_q - gq0, 64);
  const KvRange gr = rows > 0 ? variant.kv_range(gq0, gq0 + rows - 1, seq_k) : KvRange{0, 0};

  auto load_tile = [&](int t, int slot) {
    const int n0 = (tile0 + t) * kBlockN;
    load_swizzled<kD, L::kThreads>(k_s + slot * L::kTileBytes, k_g, n0, kBlockN, seq_k);
    load_swizzled<kD, L::kThreads>(v_s + slot * L::kTileBytes, v_g, n0, kBlockN, seq_k);
  };
  using Ring = TileRing<kStages>;
  load_swizzled<kD, L::kThreads>(q_s, q + static_cast<std::int64_t>(bh) * seq_q * kD, q0, L::kBlockM, seq_q);
  Ring::start(load_tile, tiles);

  float o[kD / 2];
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) o[i] = 0.f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
  const int q_idx[2] = {gq0 + 16 * warp + lane / 4, gq0 + 16 * warp + lane / 4 + 8};
  const unsigned char* q_group = q_s + 64 * group * 128;

  for (int j = 0; j < tiles; ++j) {
    // The landed tile made visible to the tensor cores (the async proxy) before the barrier.
    const int slot = Ring::enter(j, tiles, load_tile, [] { fence_proxy_async(); }), n0 = (tile0 + j) * kBlockN;
    if (rows > 0 && n0 < gr.end && n0 + kBlockN > gr.begin) {  // uniform across the warpgroup
      const unsigned char* k_tile = k_s + slot * L::kTileBytes;
      const unsigned char* v_tile = v_s + slot * L::kTileBytes;
      float s[kBlockN / 2];
      fence();
#pragma unroll
      for (int kc = 0; kc < kD / 16; ++kc) {
        // 16 columns of d: panel kc / 4, 32 bytes into its swizzled 128-byte rows per step.
        const std::uint64_t a = descriptor(q_group + (kc / 4) * L::kBlockM * 128 + (kc % 4) * 32, 16, 1024);
        const std::uint64_t bk = descriptor(k_tile + (kc / 4) * kBlockN * 128 + (kc % 4) * 32, 16, 1024);
        mma_ss<kBlockN>(s, a, bk, kc > 0);
      }
      commit();
      wait_all();
      fence_operands(s);
      float alpha[2];
      softmax_tile<kBlockN>(s, m, l, alpha, variant, b, h, q_idx, n0 + 2 * (lane % 4), seq_k, qk_scale);
#pragma unroll
      for (int i = 0; i < kD / 8; ++i) {
        o[4 * i] *= alpha[0];
        o[4 * i + 1] *= alpha[0];
        o[4 * i + 2] *= alpha[1];
        o[4 * i + 3] *= alpha[1];
      }
      unsigned p[kBlockN / 16][4];
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        p[kk][0] = pack_bf16(s[8 * kk], s[8 * kk + 1]);
        p[kk][1] = pack_bf16(s[8 * kk + 2], s[8 * kk + 3]);
        p[kk][2] = pack_bf16(s[8 * kk + 4], s[8 * kk + 5]);
        p[kk][3] = pack_bf16(s[8 * kk + 6], s[8 * kk + 7]);
      }
      fence_operands(o);
      fence();
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk)  // 16 keys a step: 2 swizzle atoms of 8 rows
        mma_rs<kD>(o, p[kk], descriptor(v_tile + kk * 16 * 128, kBlockN * 128, 1024));
      commit();
      wait_all();
      fence_operands(o);
    }
    Ring::leave();
  }
  Ring::finish();
  if (rows <= 0) return;
  float inv[2];
#pragma unroll
  for (int row = 0; row < 2; ++row) {
    float sum = l[row] + __shfl_xor_sync(0xffffffffu, l[row], 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    inv[row] = sum > 0.f ? 1.f / sum : 0.f;  // a row that masks every key is written as zeros
  }
  __nv_bfloat16* out_bh = out + static_cast<std::int64_t>(bh) * seq_q * kD;
#pragma unroll
  for (int i = 0; i < kD / 8; ++i) {
    const int col = 8 * i + 2 * (lane % 4);
#pragma unroll
    for (int row = 0; row < 2; ++row)
      if (q_idx[row] < seq_q)
        *reinterpret_cast<__nv_bfloat162*>(out_bh + static_cast<std::int64_t>(q_idx[row]) * kD + col) =
            __floats2bfloat162_rn(o[4 * i + 2 * row] * inv[row], o[4 * i + 2 * row + 1] * inv[row]);
  }
#else
  __trap();  // never launched: available() reads built_for_sm90a first
#endif
}

// Whether this GPU and this build run the sm90 path (compute capability 9.0, the sm_90a pass).
inline bool available(int device) {
  static int known = -1;
  if (known >= 0) return known == 1;
  int major = 0, minor = 0, built = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return false;
  if (major == 9 && minor == 0 && cudaMemcpyFromSymbol(&built, built_for_sm90a, sizeof built) != cudaSuccess) {
    (void)cudaGetLastError();
    built = 0;
  }
  known = major == 9 && minor == 0 && built == 1 ? 1 : 0;
  return known == 1;
}

template <int kD, int kGroups, int kBlockN, int kStages, class V>
void launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out, int batch,
            int heads, int seq_q, int seq_k, V variant, float qk_scale, int optin, hone::Stream stream) {
  using L = Layout<kD, kGroups, kBlockN, kStages>;
  auto kernel = attention_kernel_sm90<kD, kGroups, kBlockN, kStages, V>;
  if (L::kBytes > static_cast<std::size_t>(optin)) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "attention (sm90 path): WARPS=%d BLOCK_N=%d STAGES=%d with head_dim %d needs %zu bytes of shared "
                  "memory; this GPU allows %d per block (lower BLOCK_N, STAGES or WARPS)",
                  4 * kGroups, kBlockN, kStages, kD, L::kBytes, optin);
    throw hone::Error(message);
  }
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(L::kBytes));
  if (status != cudaSuccess) throw hone::Error(cudaGetErrorString(status));
  const dim3 grid((seq_q + L::kBlockM - 1) / L::kBlockM, batch * heads);
#if defined(HONE_ATTENTION_EMULATION)
  (void)stream;
  hone_emulation::launch(kernel, grid, dim3(L::kThreads), L::kBytes, q, k, v, out, heads, seq_q, seq_k, qk_scale,
                         variant);
#else
  kernel<<<grid, L::kThreads, L::kBytes, stream>>>(q, k, v, out, heads, seq_q, seq_k, qk_scale, variant);
#endif
}

}  // namespace hone_attention::sm90
