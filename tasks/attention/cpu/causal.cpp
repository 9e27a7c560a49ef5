// causal.cpp: causal attention (causal.py) on the CPU: attention_cpu.h with a causal mask hook.
#include "hone.h"

#include "attention_cpu.h"

struct Causal : hone_attention::Variant {
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const { return kv_idx <= q_idx; }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int, int q_last, int) const { return {0, q_last + 1}; }
};

void forward(hone::In<hone::bf16> q, hone::In<hone::bf16> k, hone::In<hone::bf16> v, hone::Out<hone::bf16> out,
             hone::Stream) {
  hone_attention::run(q, k, v, out, Causal{});
}
