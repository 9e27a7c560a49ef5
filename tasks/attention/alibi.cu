// alibi.cu: causal attention with ALiBi (alibi.py) on the GPU: the shared FlashAttention-2-style
// kernel (flash_attention.cuh) with a score_mod hook (slope 2^(-8 (h + 1) / heads) times
// kv_idx - q_idx) and a causal mask hook; key tiles above the diagonal are skipped.
#include "hone.h"

#include "flash_attention.cuh"

constexpr int WARPS = 4;     // hone: tune WARPS=4,8
constexpr int BLOCK_N = 32;  // hone: tune BLOCK_N=32,64,128
constexpr int STAGES = 1;    // hone: tune STAGES=1,2,3
constexpr bool WGMMA = true;   // hone: tune WGMMA=true,false

// The score arrives in base 2 (qk * sm_scale * 1.44269504), so the bias is added times log2(e).
struct Alibi : hone_attention::Variant {
  float log2_slope_step;  // -8 / heads: slope[h] = 2^(log2_slope_step * (h + 1)), no division per score
  HONE_ATTENTION_HOOK float score_mod(float score, int, int h, int q_idx, int kv_idx) const {
    const float slope = exp2f(log2_slope_step * static_cast<float>(h + 1));
    return score + slope * static_cast<float>(kv_idx - q_idx) * hone_attention::kLog2e;
  }
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const { return kv_idx <= q_idx; }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int, int q_last, int) const { return {0, q_last + 1}; }
};

void forward(hone::In<__nv_bfloat16> q, hone::In<__nv_bfloat16> k, hone::In<__nv_bfloat16> v,
             hone::Out<__nv_bfloat16> out, hone::Stream stream) {
  hone_attention::run<WARPS, BLOCK_N, STAGES, WGMMA>(q, k, v, out, stream, Alibi{{}, -8.f / static_cast<float>(q.size(1))});
}
