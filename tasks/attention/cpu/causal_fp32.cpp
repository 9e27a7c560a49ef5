// causal_fp32.cpp: causal attention in float32 (causal_fp32.py) on the CPU: attention_cpu.h with a
// causal mask hook.
#include "hone.h"

#include "attention_cpu.h"

struct Causal : hone_attention::Variant {
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const { return kv_idx <= q_idx; }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int, int q_last, int) const { return {0, q_last + 1}; }
};

void forward(hone::In<float> q, hone::In<float> k, hone::In<float> v, hone::Out<float> out, hone::Stream) {
  hone_attention::run(q, k, v, out, Causal{});
}
