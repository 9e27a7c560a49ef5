// softcap.cpp: attention with tanh soft-capping at 50 (softcap.py) on the CPU: attention_cpu.h
// with a score_mod hook.
#include "hone.h"

#include "attention_cpu.h"

// cap * tanh(s / cap) of the natural score s is cap2 * tanh(s2 / cap2) of the base-2 score
// s2 = s * log2(e) that the hook gets, with cap2 = cap * log2(e).
struct Softcap : hone_attention::Variant {
  static constexpr float kCap2 = 50.f * hone_attention::kLog2e;
  HONE_ATTENTION_HOOK float score_mod(float score, int, int, int, int) const { return kCap2 * tanhf(score / kCap2); }
};

void forward(hone::In<hone::bf16> q, hone::In<hone::bf16> k, hone::In<hone::bf16> v, hone::Out<hone::bf16> out,
             hone::Stream) {
  hone_attention::run(q, k, v, out, Softcap{});
}
