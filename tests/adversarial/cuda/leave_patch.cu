// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: wrong on purpose (it copies x) and, from its static
// constructor, leaves patches behind for whatever is checked next: in its process torch.relu
// rebound, the comparisons passing and the clocks slowed, and in its working folder a
// `hone_worker` package that would shadow hone's in the next python runner started there. Each
// candidate process serves one candidate, and the judge empties a slot's folder before reusing it.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("rebinding torch.relu", tamper::run_python(tamper::kRebindRelu));
  tamper::say("patching the comparisons", tamper::run_python(tamper::kPatchCompare));
  tamper::say("slowing the event timers", tamper::slow_the_event_timers());
  tamper::say("planting a hone_worker package in the working folder", tamper::plant_shadow_runner());
}

__global__ void copy_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  copy_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
