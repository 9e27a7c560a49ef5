// attention_cpu.h: the attention variants' CPU kernel (plain C++, raw form), for the tasks in this
// folder. Per batch, head and query: float32 scores from the inputs, the variant's hooks, a base-2
// softmax and the weighted sum of v. The hook contract is the GPU kernel's
// (../flash_attention.cuh), so a variant's hooks read the same in both files:
//   score_mod(score, b, h, q_idx, kv_idx): score arrives in base 2, q.k * sm_scale * log2(e);
//     add a bias as bias * kLog2e.
//   mask_mod(b, h, q_idx, kv_idx): false drops the key.
//   kv_range(q_first, q_last, seq_k): keys outside it are masked for every query in
//     [q_first, q_last] (the GPU kernel skips their tiles; here they are never visited).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hone.h"

#define HONE_ATTENTION_HOOK inline

namespace hone_attention {

constexpr float kLog2e = 1.4426950408889634f;

struct KvRange {
  int begin;
  int end;
};

// The hooks' defaults: the score as it is, no key masked. A variant derives and redefines some.
struct Variant {
  HONE_ATTENTION_HOOK float score_mod(float score, int, int, int, int) const { return score; }
  HONE_ATTENTION_HOOK bool mask_mod(int, int, int, int) const { return true; }
  HONE_ATTENTION_HOOK KvRange kv_range(int, int, int seq_k) const { return {0, seq_k}; }
};

inline float to_float(float x) { return x; }
inline float to_float(hone::bf16 x) {
  const uint32_t bits = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest even, as torch rounds float32 to bfloat16.
inline void store(float* dst, float x) { *dst = x; }
inline void store(hone::bf16* dst, float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if (std::isnan(x)) {
    dst->bits = 0x7fc0;
    return;
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);
  dst->bits = static_cast<uint16_t>(bits >> 16);
}

template <class T>
void check_shapes(const hone::In<T>& q, const hone::In<T>& k, const hone::In<T>& v, const hone::Out<T>& out) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || out.dim() != 4)
    throw hone::Error("attention: q, k, v and out must be (batch, heads, seq, head_dim)");
  if (!q.is_contiguous() || !k.is_contiguous() || !v.is_contiguous() || !out.is_contiguous())
    throw hone::Error("attention: q, k, v and out must be contiguous");
  for (int d : {0, 1, 3})
    if (k.size(d) != q.size(d) || v.size(d) != q.size(d))
      throw hone::Error("attention: k and v must match q's batch, heads and head_dim");
  if (v.size(2) != k.size(2)) throw hone::Error("attention: k and v must have the same sequence length");
}

// out = softmax(variant(q k^T * scale)) v for q, k, v of shape (batch, heads, seq, head_dim).
template <class T, class V>
void run(const hone::In<T>& q, const hone::In<T>& k, const hone::In<T>& v, const hone::Out<T>& out, V variant) {
  check_shapes(q, k, v, out);
  const int batch = static_cast<int>(q.size(0)), heads = static_cast<int>(q.size(1));
  const int seq_q = static_cast<int>(q.size(2)), seq_k = static_cast<int>(k.size(2));
  const int dim = static_cast<int>(q.size(3));
  const float qk_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(dim))) * kLog2e;
  std::vector<float> qrow(dim), scores(seq_k), acc(dim);
  std::vector<float> kf(static_cast<std::size_t>(seq_k) * dim), vf(kf.size());
  for (int bh = 0; bh < batch * heads; ++bh) {
    const int b = bh / heads, h = bh % heads;
    const std::size_t kv_base = static_cast<std::size_t>(bh) * seq_k * dim;
    for (std::size_t i = 0; i < kf.size(); ++i) {
      kf[i] = to_float(k.data()[kv_base + i]);
      vf[i] = to_float(v.data()[kv_base + i]);
    }
    for (int qi = 0; qi < seq_q; ++qi) {
      const std::size_t row = (static_cast<std::size_t>(bh) * seq_q + qi) * dim;
      for (int d = 0; d < dim; ++d) qrow[d] = to_float(q.data()[row + d]);
      KvRange range = variant.kv_range(qi, qi, seq_k);
      const int begin = range.begin < 0 ? 0 : range.begin, end = range.end > seq_k ? seq_k : range.end;
      float m = -INFINITY;
      for (int kv = begin; kv < end; ++kv) {
        const float* kr = kf.data() + static_cast<std::size_t>(kv) * dim;
        float dot = 0.f;
        for (int d = 0; d < dim; ++d) dot += qrow[d] * kr[d];
        float s = variant.score_mod(dot * qk_scale, b, h, qi, kv);
        if (!variant.mask_mod(b, h, qi, kv)) s = -INFINITY;
        scores[kv] = s;
        m = std::fmax(m, s);
      }
      for (int d = 0; d < dim; ++d) acc[d] = 0.f;
      float l = 0.f;
      if (m != -INFINITY) {
        for (int kv = begin; kv < end; ++kv) {
          const float p = std::exp2(scores[kv] - m);
          l += p;
          const float* vr = vf.data() + static_cast<std::size_t>(kv) * dim;
          for (int d = 0; d < dim; ++d) acc[d] += p * vr[d];
        }
      }
      const float inv = l > 0.f ? 1.f / l : 0.f;
      for (int d = 0; d < dim; ++d) store(out.data() + row + d, acc[d] * inv);
    }
  }
}

}  // namespace hone_attention
