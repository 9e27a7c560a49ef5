// flash_attention.cuh: the attention variants' GPU kernel, FlashAttention-2 style (raw form, sm_80+).
// One block per (query tile, batch * head); each warp owns 16 query rows. Per key tile: S = Q K^T
// on tensor cores (WMMA, fp32 accumulation) into the warp's shared-memory scratch, the variant's
// hooks and an online base-2 softmax on it (two lanes per row), then O += P V on tensor cores with
// O kept in accumulator fragments. K and V tiles stream through a cp.async ring of STAGES slots;
// key tiles outside the variant's kv_range are skipped (causal: half the work). bf16 inputs go
// through bf16 MMAs with P rounded to bf16; float32 inputs through 3xTF32 (hi/lo split) MMAs.
//
// A variant is a struct deriving from hone_attention::Variant that redefines any of its hooks
// (inlined at compile time, with HONE_ATTENTION_HOOK before each):
//   float score_mod(float score, int b, int h, int q_idx, int kv_idx) const
//     score arrives in base 2, q.k * sm_scale * log2(e) (qk_scale = sm_scale * 1.44269504):
//     a bias of the reference is added as bias * kLog2e.
//   bool mask_mod(int b, int h, int q_idx, int kv_idx) const       false drops the key
//   KvRange kv_range(int q_first, int q_last, int seq_k) const
//     holds every key that mask_mod keeps for any query in [q_first, q_last] (clamped to
//     [0, seq_k)); tiles outside it are never loaded. The default is every key.
// A variant file defines its struct and forward, which calls hone_attention::run<WARPS, BLOCK_N,
// STAGES>(q, k, v, out, stream, Variant{...}). Rows that mask every key are written as zeros.
#pragma once

#if !defined(HONE_ATTENTION_EMULATION)  // tests/attention/emulation runs this file on the host
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "hone.h"

#define HONE_ATTENTION_HOOK __device__ __forceinline__

namespace hone_attention {

namespace wmma = nvcuda::wmma;

constexpr float kLog2e = 1.4426950408889634f;

struct KvRange {
  int begin;
  int end;
};

// The hooks' defaults: the score as it is, no key masked, every key tile visited.
struct Variant {
  HONE_ATTENTION_HOOK float score_mod(float score, int, int, int, int) const { return score; }
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int, int) const { return true; }
  HONE_ATTENTION_HOOK KvRange kv_range(int, int, int seq_k) const { return {0, seq_k}; }
};

// Tensor-core operations per input type: fragment types, the k-extent of one MMA, the padding of
// shared-memory rows (in elements), and the type P is rounded to for P V.
template <class T>
struct Mma;

template <>
struct Mma<__nv_bfloat16> {
  using P = __nv_bfloat16;
  static constexpr int kK = 16;
  static constexpr int kPad = 8;
  using A = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
  using BCol = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major>;
  using BRow = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
  using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

  template <class F>
  __device__ static void load(F& f, const __nv_bfloat16* p, int ld) {
    wmma::load_matrix_sync(f, p, ld);
  }
  template <class B>
  __device__ static void mma(Acc& c, const A& a, const B& b) {
    wmma::mma_sync(c, a, b, c);
  }
  __device__ static void store_pair(P* dst, float x, float y) {
    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(x, y);
  }
};

// A float32 operand as two TF32 fragments, hi = tf32(x) and lo = tf32(x - hi): the three products
// hi*hi + hi*lo + lo*hi carry about float32's precision (3xTF32).
template <class Use, class Layout>
struct SplitTf32 {
  wmma::fragment<Use, 16, 16, 8, wmma::precision::tf32, Layout> hi, lo;
};

template <>
struct Mma<float> {
  using P = float;
  static constexpr int kK = 8;
  static constexpr int kPad = 4;
  using A = SplitTf32<wmma::matrix_a, wmma::row_major>;
  using BCol = SplitTf32<wmma::matrix_b, wmma::col_major>;
  using BRow = SplitTf32<wmma::matrix_b, wmma::row_major>;
  using Acc = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

  template <class F>
  __device__ static void load(F& f, const float* p, int ld) {
    wmma::load_matrix_sync(f.hi, p, ld);
#pragma unroll
    for (int i = 0; i < f.hi.num_elements; ++i) {
      const float x = f.hi.x[i];
      const float hi = wmma::__float_to_tf32(x);
      f.hi.x[i] = hi;
      f.lo.x[i] = wmma::__float_to_tf32(x - hi);
    }
  }
  template <class B>
  __device__ static void mma(Acc& c, const A& a, const B& b) {
    wmma::mma_sync(c, a.lo, b.hi, c);
    wmma::mma_sync(c, a.hi, b.lo, c);
    wmma::mma_sync(c, a.hi, b.hi, c);
  }
  __device__ static void store_pair(P* dst, float x, float y) { *reinterpret_cast<float2*>(dst) = make_float2(x, y); }
};

constexpr std::size_t align_up(std::size_t n) { return (n + 127) / 128 * 128; }
constexpr int max_of(int a, int b) { return a > b ? a : b; }

// The shared-memory layout of one configuration (byte offsets, each 128-aligned) and its strides.
template <class T, int kD, int kWarps, int kBlockN, int kStages>
struct Config {
  using Input = T;
  using P = typename Mma<T>::P;
  static constexpr int kTileN = kBlockN;
  static constexpr int kBlockM = 16 * kWarps;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kLdT = kD + Mma<T>::kPad;        // Q, K, V tile rows (elements)
  static constexpr int kLdS = kBlockN + 4;              // score rows (floats)
  static constexpr int kLdO = kD + 4;                   // output staging rows (floats)
  static constexpr int kLdP = kBlockN + Mma<T>::kPad;   // probability rows (elements of P)
  static constexpr int kScratch = 16 * max_of(kLdS, kLdO);  // floats per warp: scores, then O
  static constexpr std::size_t kTileBytes = align_up(std::size_t(kBlockN) * kLdT * sizeof(T));
  static constexpr std::size_t kQ = 0;
  static constexpr std::size_t kK = kQ + align_up(std::size_t(kBlockM) * kLdT * sizeof(T));
  static constexpr std::size_t kV = kK + kStages * kTileBytes;
  static constexpr std::size_t kS = kV + kStages * kTileBytes;
  static constexpr std::size_t kP = kS + align_up(std::size_t(kWarps) * kScratch * sizeof(float));
  static constexpr std::size_t kStats = kP + align_up(std::size_t(kWarps) * 16 * kLdP * sizeof(P));
  static constexpr std::size_t kBytes = kStats + align_up(std::size_t(kWarps) * 16 * sizeof(float));

  static_assert(kD % 16 == 0 && kBlockN % 32 == 0, "head_dim must be a multiple of 16, BLOCK_N of 32");
  static_assert(kStages >= 1 && kStages <= 4, "STAGES must be 1 to 4");
};

// Copies `rows` rows of kD elements, starting at global row `row0` (of `limit` valid rows), into
// a shared tile with row stride kLdT; rows past `limit` are zero-filled. Issued by every thread.
template <class T, int kD, int kLdT, int kThreads>
__device__ __forceinline__ void load_rows(T* dst, const T* src, int row0, int rows, int limit) {
  constexpr int kVec = 16 / sizeof(T);
  constexpr int kChunks = kD / kVec;
  for (int c = threadIdx.x; c < rows * kChunks; c += kThreads) {
    const int r = c / kChunks, col = (c % kChunks) * kVec;
    T* d = dst + r * kLdT + col;
    if (row0 + r < limit)
      __pipeline_memcpy_async(d, src + static_cast<std::int64_t>(row0 + r) * kD + col, 16);
    else
      *reinterpret_cast<uint4*>(d) = make_uint4(0u, 0u, 0u, 0u);
  }
}

__device__ __forceinline__ unsigned bf16_pair(float x, float y) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
  return *reinterpret_cast<const unsigned*>(&h);
}

// Eight floats of the staging rows to eight bf16 (or four floats to four floats) in one store.
__device__ __forceinline__ void store_row_chunk(__nv_bfloat16* dst, const float* src) {
  const float4 a = *reinterpret_cast<const float4*>(src);
  const float4 b = *reinterpret_cast<const float4*>(src + 4);
  __stcg(reinterpret_cast<uint4*>(dst),
         make_uint4(bf16_pair(a.x, a.y), bf16_pair(a.z, a.w), bf16_pair(b.x, b.y), bf16_pair(b.z, b.w)));
}

__device__ __forceinline__ void store_row_chunk(float* dst, const float* src) {
  __stcg(reinterpret_cast<float4*>(dst), *reinterpret_cast<const float4*>(src));
}

// S = Q_w K^T for the warp's 16 rows and one key tile, stored to the warp's scratch (row stride
// kLdS). q_w: the warp's rows of the Q tile; k_tile: the K tile (kBlockN rows).
template <class C, class T, int kD, int kBlockN>
__device__ __forceinline__ void compute_scores(const T* q_w, const T* k_tile, float* scratch) {
  using M = Mma<T>;
  typename M::Acc s[kBlockN / 16];
#pragma unroll
  for (int n = 0; n < kBlockN / 16; ++n) wmma::fill_fragment(s[n], 0.f);
#pragma unroll
  for (int kc = 0; kc < kD / M::kK; ++kc) {
    typename M::A a;
    M::load(a, q_w + kc * M::kK, C::kLdT);
#pragma unroll
    for (int n = 0; n < kBlockN / 16; ++n) {
      typename M::BCol kt;  // K^T: element (d, j) is K[j][d], column-major from K's rows
      M::load(kt, k_tile + 16 * n * C::kLdT + kc * M::kK, C::kLdT);
      M::mma(s[n], a, kt);
    }
  }
#pragma unroll
  for (int n = 0; n < kBlockN / 16; ++n) wmma::store_matrix_sync(scratch + 16 * n, s[n], C::kLdS, wmma::mem_row_major);
}

// The online softmax over one key tile for the lane's half of row `r` (columns 2*half + 4j and
// the next): applies the hooks in place, updates the row's max (shared by the row's two lanes)
// and the lane's partial sum, writes P = exp2(s - max) to p_s and the row's rescale factor
// exp2(old max - new max) to stats[r].
template <class C, class V>
__device__ __forceinline__ void softmax_tile(float* scratch, typename C::P* p_s, float* stats, float& m_row,
                                             float& l_row, V variant, int b, int h, int q_idx, int r,
                                             int half, int n0, int seq_k, float qk_scale) {
  float* srow = scratch + r * C::kLdS;
  float mx = -INFINITY;
#pragma unroll
  for (int j = 0; j < C::kTileN / 4; ++j) {
    const int c = 4 * j + 2 * half;
    float2 x = *reinterpret_cast<float2*>(srow + c);
    const int kv = n0 + c;
    x.x = variant.score_mod(x.x * qk_scale, b, h, q_idx, kv);
    x.y = variant.score_mod(x.y * qk_scale, b, h, q_idx, kv + 1);
    if (kv >= seq_k || !variant.mask_mod(b, h, q_idx, kv)) x.x = -INFINITY;
    if (kv + 1 >= seq_k || !variant.mask_mod(b, h, q_idx, kv + 1)) x.y = -INFINITY;
    *reinterpret_cast<float2*>(srow + c) = x;
    mx = fmaxf(mx, fmaxf(x.x, x.y));
  }
  mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
  const float m_new = fmaxf(m_row, mx);
  const float m_use = m_new == -INFINITY ? 0.f : m_new;  // a row with every key masked so far
  const float alpha = exp2f(m_row - m_use);
  typename C::P* prow = p_s + r * C::kLdP;
  float sum = 0.f;
#pragma unroll
  for (int j = 0; j < C::kTileN / 4; ++j) {
    const int c = 4 * j + 2 * half;
    const float2 x = *reinterpret_cast<const float2*>(srow + c);
    const float p0 = exp2f(x.x - m_use), p1 = exp2f(x.y - m_use);
    sum += p0 + p1;
    Mma<typename C::Input>::store_pair(prow + c, p0, p1);
  }
  l_row = l_row * alpha + sum;
  m_row = m_new;
  if (half == 0) stats[r] = alpha;
}

// Multiplies each row of O by stats[row] (row_of maps fragment elements to their rows).
template <class Acc, int kFrags>
__device__ __forceinline__ void scale_rows(Acc (&o)[kFrags], const float* stats, const int (&row_of)[Acc::num_elements]) {
  float f[Acc::num_elements];
#pragma unroll
  for (int i = 0; i < Acc::num_elements; ++i) f[i] = stats[row_of[i]];
#pragma unroll
  for (int d = 0; d < kFrags; ++d)
#pragma unroll
    for (int i = 0; i < Acc::num_elements; ++i) o[d].x[i] *= f[i];
}

// O += P V for the warp's rows: p_s holds P (16 x kBlockN), v_tile the V tile (kBlockN x kD).
template <class C, class T, int kD, int kBlockN>
__device__ __forceinline__ void accumulate_pv(typename Mma<T>::Acc (&o)[kD / 16], const typename C::P* p_s,
                                              const T* v_tile) {
  using M = Mma<T>;
#pragma unroll
  for (int kk = 0; kk < kBlockN / M::kK; ++kk) {
    typename M::A p;
    M::load(p, p_s + kk * M::kK, C::kLdP);
#pragma unroll
    for (int d = 0; d < kD / 16; ++d) {
      typename M::BRow vt;
      M::load(vt, v_tile + kk * M::kK * C::kLdT + 16 * d, C::kLdT);
      M::mma(o[d], p, vt);
    }
  }
}

// Writes the warp's finished rows: O / l through the scratch, 16-byte stores, rows < seq_q only.
template <class C, class T, int kD>
__device__ __forceinline__ void write_rows(typename Mma<T>::Acc (&o)[kD / 16], float* scratch, float* stats,
                                           const int (&row_of)[Mma<T>::Acc::num_elements], float l_row, int r,
                                           int half, int lane, T* out_rows, int rows) {
  const float l = l_row + __shfl_xor_sync(0xffffffffu, l_row, 1);
  __syncwarp();
  if (half == 0) stats[r] = l > 0.f ? 1.f / l : 0.f;
  __syncwarp();
  scale_rows(o, stats, row_of);
#pragma unroll
  for (int d = 0; d < kD / 16; ++d) wmma::store_matrix_sync(scratch + 16 * d, o[d], C::kLdO, wmma::mem_row_major);
  __syncwarp();
  constexpr int kVec = 16 / sizeof(T), kChunks = kD / kVec;
  for (int c = lane; c < 16 * kChunks; c += 32) {
    const int row = c / kChunks, col = (c % kChunks) * kVec;
    if (row < rows) store_row_chunk(out_rows + static_cast<std::int64_t>(row) * kD + col, scratch + row * C::kLdO + col);
  }
}

// Which row of a 16 x 16 tile each accumulator element holds, without assuming WMMA's layout:
// loads a tile whose every element is its row index (through the warp's scratch).
template <class Acc>
__device__ __forceinline__ void rows_of_elements(float* scratch, int lane, int (&row_of)[Acc::num_elements]) {
  for (int i = lane; i < 256; i += 32) scratch[i] = static_cast<float>(i / 16);
  __syncwarp();
  Acc ids;
  wmma::load_matrix_sync(ids, scratch, 16, wmma::mem_row_major);
#pragma unroll
  for (int i = 0; i < Acc::num_elements; ++i) row_of[i] = static_cast<int>(ids.x[i]);
  __syncwarp();
}

// The key tiles a block of query rows [q0, q0 + block_m) visits (both kernels): those holding any
// key of the variant's kv_range for its rows, clamped to [0, seq_k).
struct KeyTiles {
  int first, count;
};
template <class V>
__device__ __forceinline__ KeyTiles key_tiles(const V& variant, int q0, int block_m, int seq_q, int seq_k, int block_n) {
  const KvRange r = variant.kv_range(q0, min(q0 + block_m, seq_q) - 1, seq_k);
  const int begin = max(r.begin, 0), end = min(r.end, seq_k);
  const int first = begin / block_n;
  return {first, end > begin ? (end + block_n - 1) / block_n - first : 0};
}

// The cp.async ring of kStages slots that K and V tiles stream through (both kernels): tile j sits
// in slot j % kStages; with one stage each tile is loaded, waited for and used in turn. `load(t,
// slot)` issues tile t's copies.
template <int kStages>
struct TileRing {
  // After the Q copies were issued: commits them and starts the first kStages - 1 tiles.
  template <class Load>
  __device__ static void start(Load load, int tiles) {
    __pipeline_commit();
    if constexpr (kStages > 1) {
#pragma unroll
      for (int s = 0; s < kStages - 1; ++s) {
        if (s < tiles) load(s, s);
        __pipeline_commit();
      }
    }
  }
  // Waits until tile j (and Q) have landed for every thread, `publish()` run by each thread between
  // its wait and the barrier; then, every thread being done with tile j - 1's slot, issues the
  // copies of tile j + kStages - 1 into it. Returns tile j's slot.
  template <class Load, class Publish>
  __device__ static int enter(int j, int tiles, Load load, Publish publish) {
    if constexpr (kStages == 1) {
      load(j, 0);
      __pipeline_commit();
      __pipeline_wait_prior(0);
    } else {
      __pipeline_wait_prior(kStages - 2);
    }
    publish();
    __syncthreads();  // tile j has landed for every thread
    if constexpr (kStages > 1) {
      if (j + kStages - 1 < tiles) load(j + kStages - 1, (j + kStages - 1) % kStages);
      __pipeline_commit();
    }
    return kStages == 1 ? 0 : j % kStages;
  }
  // After tile j's last read: with one slot, the next tile must not overwrite it before then.
  __device__ static void leave() {
    if constexpr (kStages == 1) __syncthreads();
  }
  // No copy may still be in flight when the block ends.
  __device__ static void finish() { __pipeline_wait_prior(0); }
};

template <class T, int kD, int kWarps, int kBlockN, int kStages, class V>
__global__ void __launch_bounds__(32 * kWarps)
    attention_kernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, T* __restrict__ out,
                     int heads, int seq_q, int seq_k, float qk_scale, V variant) {
  using C = Config<T, kD, kWarps, kBlockN, kStages>;
  using Acc = typename Mma<T>::Acc;
  extern __shared__ __align__(128) unsigned char smem[];
  T* q_s = reinterpret_cast<T*>(smem + C::kQ);
  T* k_s = reinterpret_cast<T*>(smem + C::kK);
  T* v_s = reinterpret_cast<T*>(smem + C::kV);
  constexpr int kSlot = static_cast<int>(C::kTileBytes / sizeof(T));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* scratch = reinterpret_cast<float*>(smem + C::kS) + warp * C::kScratch;
  typename C::P* p_s = reinterpret_cast<typename C::P*>(smem + C::kP) + warp * 16 * C::kLdP;
  float* stats = reinterpret_cast<float*>(smem + C::kStats) + warp * 16;

  const int bh = blockIdx.y, b = bh / heads, h = bh % heads;
  const int q0 = (gridDim.x - 1 - blockIdx.x) * C::kBlockM;  // the longest causal rows start first
  const T* k_g = k + static_cast<std::int64_t>(bh) * seq_k * kD;
  const T* v_g = v + static_cast<std::int64_t>(bh) * seq_k * kD;
  const KeyTiles kt = key_tiles(variant, q0, C::kBlockM, seq_q, seq_k, kBlockN);
  const int tile0 = kt.first, tiles = kt.count;
  const int wq0 = q0 + 16 * warp, rows = min(seq_q - wq0, 16);
  const KvRange wr = rows > 0 ? variant.kv_range(wq0, wq0 + rows - 1, seq_k) : KvRange{0, 0};

  auto load_tile = [&](int t, int slot) {
    const int n0 = (tile0 + t) * kBlockN;
    load_rows<T, kD, C::kLdT, C::kThreads>(k_s + slot * kSlot, k_g, n0, kBlockN, seq_k);
    load_rows<T, kD, C::kLdT, C::kThreads>(v_s + slot * kSlot, v_g, n0, kBlockN, seq_k);
  };
  using Ring = TileRing<kStages>;
  load_rows<T, kD, C::kLdT, C::kThreads>(q_s, q + static_cast<std::int64_t>(bh) * seq_q * kD, q0, C::kBlockM, seq_q);
  Ring::start(load_tile, tiles);

  int row_of[Acc::num_elements];
  rows_of_elements<Acc>(scratch, lane, row_of);

  Acc o[kD / 16];
#pragma unroll
  for (int d = 0; d < kD / 16; ++d) wmma::fill_fragment(o[d], 0.f);
  float m_row = -INFINITY, l_row = 0.f;
  const int r = lane / 2, half = lane % 2;

  for (int j = 0; j < tiles; ++j) {
    const int slot = Ring::enter(j, tiles, load_tile, [] {}), n0 = (tile0 + j) * kBlockN;
    if (rows > 0 && n0 < wr.end && n0 + kBlockN > wr.begin) {
      compute_scores<C, T, kD, kBlockN>(q_s + 16 * warp * C::kLdT, k_s + slot * kSlot, scratch);
      __syncwarp();
      softmax_tile<C>(scratch, p_s, stats, m_row, l_row, variant, b, h, wq0 + r, r, half, n0, seq_k, qk_scale);
      __syncwarp();
      scale_rows(o, stats, row_of);
      accumulate_pv<C, T, kD, kBlockN>(o, p_s, v_s + slot * kSlot);
    }
    Ring::leave();
  }
  Ring::finish();
  if (rows > 0)
    write_rows<C, T, kD>(o, scratch, stats, row_of, l_row, r, half, lane,
                         out + (static_cast<std::int64_t>(bh) * seq_q + wq0) * kD, rows);
}

}  // namespace hone_attention

#include "flash_attention_sm90.cuh"

namespace hone_attention {

// Launches one configuration for head dimension kD; throws hone::Error when it cannot run here.
// With kWgmma, bf16 on a 9.0 GPU built for sm_90a takes the sm90 path (flash_attention_sm90.cuh:
// wgmma, S and P in registers) when WARPS is a multiple of 4; everything else the WMMA kernel above.
template <class T, int kD, int kWarps, int kBlockN, int kStages, bool kWgmma, class V>
void launch(const T* q, const T* k, const T* v, T* out, int batch, int heads, int seq_q, int seq_k, V variant,
            hone::Stream stream) {
  using C = Config<T, kD, kWarps, kBlockN, kStages>;
  auto kernel = attention_kernel<T, kD, kWarps, kBlockN, kStages, V>;
  const float qk_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(kD))) * kLog2e;
  int device = 0, optin = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (status != cudaSuccess) throw hone::Error(cudaGetErrorString(status));
  if constexpr (kWgmma && std::is_same_v<T, __nv_bfloat16> && kWarps % 4 == 0 && kBlockN <= 128) {
    if (sm90::available(device))
      return sm90::launch<kD, kWarps / 4, kBlockN, kStages>(q, k, v, out, batch, heads, seq_q, seq_k, variant,
                                                            qk_scale, optin, stream);
  }
  if (C::kBytes > static_cast<std::size_t>(optin)) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "attention: WARPS=%d BLOCK_N=%d STAGES=%d with head_dim %d needs %zu bytes of shared memory; "
                  "this GPU allows %d per block (lower BLOCK_N, STAGES or WARPS)",
                  kWarps, kBlockN, kStages, kD, C::kBytes, optin);
    throw hone::Error(message);
  }
  status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kBytes));
  if (status != cudaSuccess) throw hone::Error(cudaGetErrorString(status));
  const dim3 grid((seq_q + C::kBlockM - 1) / C::kBlockM, batch * heads);
#if defined(HONE_ATTENTION_EMULATION)
  hone_emulation::launch(kernel, grid, dim3(C::kThreads), C::kBytes, q, k, v, out, heads, seq_q, seq_k, qk_scale,
                         variant);
#else
  kernel<<<grid, C::kThreads, C::kBytes, stream>>>(q, k, v, out, heads, seq_q, seq_k, qk_scale, variant);
#endif
}

// out = softmax(variant(q k^T / sqrt(head_dim))) v for contiguous q (batch, heads, seq_q, d) and
// k, v (batch, heads, seq_k, d), d = 64 or 128. Called by each variant's forward. kWgmma asks for
// the sm90 path where the GPU and the build have it (the WMMA kernel elsewhere); off by default
// until it has run on an H200 (tasks/attention/README.md).
template <int kWarps, int kBlockN, int kStages, bool kWgmma = false, class T, class V>
void run(const hone::In<T>& q, const hone::In<T>& k, const hone::In<T>& v, const hone::Out<T>& out,
         hone::Stream stream, V variant) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || out.dim() != 4)
    throw hone::Error("attention: q, k, v and out must be (batch, heads, seq, head_dim)");
  if (!q.is_contiguous() || !k.is_contiguous() || !v.is_contiguous() || !out.is_contiguous())
    throw hone::Error("attention: q, k, v and out must be contiguous");
  const int dims[] = {0, 1, 3};
  for (int d : dims)
    if (k.size(d) != q.size(d) || v.size(d) != q.size(d) || out.size(d) != q.size(d))
      throw hone::Error("attention: k, v and out must match q's batch, heads and head_dim");
  if (v.size(2) != k.size(2) || out.size(2) != q.size(2))
    throw hone::Error("attention: v must have k's sequence length, out q's");
  const int batch = static_cast<int>(q.size(0)), heads = static_cast<int>(q.size(1));
  const int seq_q = static_cast<int>(q.size(2)), seq_k = static_cast<int>(k.size(2));
  if (q.numel() == 0 || k.numel() == 0) return;
  for (const void* p : {static_cast<const void*>(q.data()), static_cast<const void*>(k.data()),
                        static_cast<const void*>(v.data()), static_cast<const void*>(out.data())})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) throw hone::Error("attention: q, k, v and out must be 16-byte aligned");
  if (static_cast<std::int64_t>(batch) * heads > 65535) throw hone::Error("attention: batch * heads must be <= 65535");
  switch (q.size(3)) {
    case 64:
      launch<T, 64, kWarps, kBlockN, kStages, kWgmma>(q.data(), k.data(), v.data(), out.data(), batch, heads, seq_q,
                                                      seq_k, variant, stream);
      return;
    case 128:
      launch<T, 128, kWarps, kBlockN, kStages, kWgmma>(q.data(), k.data(), v.data(), out.data(), batch, heads, seq_q,
                                                       seq_k, variant, stream);
      return;
    default:
      throw hone::Error("attention: head_dim must be 64 or 128");
  }
}

}  // namespace hone_attention
