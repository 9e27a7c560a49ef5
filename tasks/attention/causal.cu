// causal.cu: causal attention (causal.py) on the GPU: the shared FlashAttention-2-style kernel
// (flash_attention.cuh) with a causal mask hook; key tiles above the diagonal are skipped.
#include "hone.h"

#include "flash_attention.cuh"

constexpr int WARPS = 4;     // hone: tune WARPS=4,8
constexpr int BLOCK_N = 32;  // hone: tune BLOCK_N=32,64,128
constexpr int STAGES = 1;    // hone: tune STAGES=1,2,3
constexpr bool WGMMA = true;   // hone: tune WGMMA=true,false

struct Causal : hone_attention::Variant {
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const { return kv_idx <= q_idx; }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int, int q_last, int) const { return {0, q_last + 1}; }
};

void forward(hone::In<__nv_bfloat16> q, hone::In<__nv_bfloat16> k, hone::In<__nv_bfloat16> v,
             hone::Out<__nv_bfloat16> out, hone::Stream stream) {
  hone_attention::run<WARPS, BLOCK_N, STAGES, WGMMA>(q, k, v, out, stream, Causal{});
}
