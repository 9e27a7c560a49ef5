// relative_position.cu: attention with the relative position bias q_idx - kv_idx
// (relative_position.py, the variant of NVIDIA's DeepSeek-R1 + verifier study) on the GPU: the
// shared FlashAttention-2-style kernel (flash_attention.cuh) with a score_mod hook.
#include "hone.h"

#include "flash_attention.cuh"

constexpr int WARPS = 4;     // hone: tune WARPS=4,8
constexpr int BLOCK_N = 32;  // hone: tune BLOCK_N=32,64,128
constexpr int STAGES = 1;    // hone: tune STAGES=1,2,3
constexpr bool WGMMA = true;   // hone: tune WGMMA=true,false

// The softmax runs in base 2: the score arrives as qk * qk_scale, qk_scale = sm_scale * 1.44269504,
// so the bias is added as (q_idx - kv_idx) * 1.44269504 (the reference adds it unscaled).
struct RelativePosition : hone_attention::Variant {
  HONE_ATTENTION_HOOK float score_mod(float score, int, int, int q_idx, int kv_idx) const {
    return score + static_cast<float>(q_idx - kv_idx) * hone_attention::kLog2e;
  }
};

void forward(hone::In<__nv_bfloat16> q, hone::In<__nv_bfloat16> k, hone::In<__nv_bfloat16> v,
             hone::Out<__nv_bfloat16> out, hone::Stream stream) {
  hone_attention::run<WARPS, BLOCK_N, STAGES, WGMMA>(q, k, v, out, stream, RelativePosition{});
}
