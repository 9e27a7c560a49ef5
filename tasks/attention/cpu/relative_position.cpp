// relative_position.cpp: attention with the relative position bias q_idx - kv_idx
// (relative_position.py) on the CPU: attention_cpu.h with a score_mod hook.
#include "hone.h"

#include "attention_cpu.h"

// The score arrives in base 2 (q.k * sm_scale * log2(e)), so the bias is added times log2(e).
struct RelativePosition : hone_attention::Variant {
  HONE_ATTENTION_HOOK float score_mod(float score, int, int, int q_idx, int kv_idx) const {
    return score + static_cast<float>(q_idx - kv_idx) * hone_attention::kLog2e;
  }
};

void forward(hone::In<hone::bf16> q, hone::In<hone::bf16> k, hone::In<hone::bf16> v, hone::Out<hone::bf16> out,
             hone::Stream) {
  hone_attention::run(q, k, v, out, RelativePosition{});
}
