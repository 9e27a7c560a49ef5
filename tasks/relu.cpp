// ReLU, raw form for the CPU device: out = max(x, 0) in one pass the compiler vectorises (the
// output never aliases the input: the harness allocates it).
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  if (!x.is_contiguous()) throw hone::Error("relu: x must be contiguous");
  const float* __restrict in = x.data();
  float* __restrict o = out.data();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
}
