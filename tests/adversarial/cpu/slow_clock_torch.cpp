// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), torch form: correct but slow (the ReLU done 20 times over), and from its
// static constructor it makes the clocks of the process that loads it run 50 times slower.
#include <torch/extension.h>

#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("slowing the host clock 50 times", tamper::slow_the_host_clock());
}

torch::Tensor forward(torch::Tensor x) {
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  for (int pass = 0; pass < 20; ++pass) {
    for (int64_t i = 0; i < in.numel(); ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    asm volatile("" ::: "memory");
  }
  return out;
}
