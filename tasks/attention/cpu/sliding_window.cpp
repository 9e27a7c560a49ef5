// sliding_window.cpp: causal attention within a window of 256 earlier keys (sliding_window.py) on
// the CPU: attention_cpu.h with a mask hook and its key range.
#include "hone.h"

#include "attention_cpu.h"

constexpr int kWindow = 256;  // sliding_window.py's window

struct SlidingWindow : hone_attention::Variant {
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int q_idx, int kv_idx) const {
    return kv_idx <= q_idx && q_idx - kv_idx <= kWindow;
  }
  HONE_ATTENTION_HOOK hone_attention::KvRange kv_range(int q_first, int q_last, int) const {
    return {q_first - kWindow, q_last + 1};
  }
};

void forward(hone::In<hone::bf16> q, hone::In<hone::bf16> k, hone::In<hone::bf16> v, hone::Out<hone::bf16> out,
             hone::Stream) {
  hone_attention::run(q, k, v, out, SlidingWindow{});
}
