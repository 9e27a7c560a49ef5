// prefix_lm.cpp: prefix-LM attention with a 512-position prefix (prefix_lm.py) on the CPU:
// attention_cpu.h with a mask hook and its key range.
#include "hone.h"

#include "attention_cpu.h"

constexpr int kPrefix = 512;  // prefix_lm.py's prefix

struct PrefixLm : hone_attention::Variant {
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const { return kv_idx < kPrefix || kv_idx <= q_idx; }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int, int q_last, int) const {
    return {0, q_last + 1 > kPrefix ? q_last + 1 : kPrefix};
  }
};

void forward(hone::In<hone::bf16> q, hone::In<hone::bf16> k, hone::In<hone::bf16> v, hone::Out<hone::bf16> out,
             hone::Stream) {
  hone_attention::run(q, k, v, out, PrefixLm{});
}
