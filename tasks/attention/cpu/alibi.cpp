// alibi.cpp: causal attention with ALiBi (alibi.py) on the CPU: attention_cpu.h with a score_mod
// hook (slope 2^(-8 (h + 1) / heads) times kv_idx - q_idx) and a causal mask hook.
#include "hone.h"

#include "attention_cpu.h"

// The score arrives in base 2 (q.k * sm_scale * log2(e)), so the bias is added times log2(e).
struct Alibi : hone_attention::Variant {
  float log2_slope_step;  // -8 / heads: slope[h] = 2^(log2_slope_step * (h + 1)), no division per score
  HONE_ATTENTION_HOOK float score_mod(float score, int, int h, int q_idx, int kv_idx) const {
    const float slope = exp2f(log2_slope_step * static_cast<float>(h + 1));
    return score + slope * static_cast<float>(kv_idx - q_idx) * hone_attention::kLog2e;
  }
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const { return kv_idx <= q_idx; }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int, int q_last, int) const { return {0, q_last + 1}; }
};

void forward(hone::In<hone::bf16> q, hone::In<hone::bf16> k, hone::In<hone::bf16> v, hone::Out<hone::bf16> out,
             hone::Stream) {
  hone_attention::run(q, k, v, out, Alibi{{}, -8.f / static_cast<float>(q.size(1))});
}
