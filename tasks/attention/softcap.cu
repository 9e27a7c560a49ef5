// softcap.cu: attention with tanh soft-capping at 50 (softcap.py) on the GPU: the shared
// FlashAttention-2-style kernel (flash_attention.cuh) with a score_mod hook.
#include "hone.h"

#include "flash_attention.cuh"

constexpr int WARPS = 4;     // hone: tune WARPS=4,8
constexpr int BLOCK_N = 32;  // hone: tune BLOCK_N=32,64,128
constexpr int STAGES = 1;    // hone: tune STAGES=1,2,3
constexpr bool WGMMA = true;   // hone: tune WGMMA=true,false

// cap * tanh(s / cap) of the natural score s is cap2 * tanh(s2 / cap2) of the base-2 score
// s2 = s * log2(e) that the hook gets, with cap2 = cap * log2(e).
struct Softcap : hone_attention::Variant {
  static constexpr float kCap2 = 50.f * hone_attention::kLog2e;
  HONE_ATTENTION_HOOK float score_mod(float score, int, int, int, int) const { return kCap2 * tanhf(score / kCap2); }
};

void forward(hone::In<__nv_bfloat16> q, hone::In<__nv_bfloat16> k, hone::In<__nv_bfloat16> v,
             hone::Out<__nv_bfloat16> out, hone::Stream stream) {
  hone_attention::run<WARPS, BLOCK_N, STAGES, WGMMA>(q, k, v, out, stream, Softcap{});
}
