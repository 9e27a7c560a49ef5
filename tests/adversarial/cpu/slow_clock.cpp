// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: correct but slow (the ReLU done 20 times over), and from its
// static constructor it makes the clocks of the process that loads it run 50 times slower
// (libc's clock_gettime hot-patched: std::chrono and Python's time.perf_counter read it), so
// the times that process reports are 50 times too short. The judge's own clock bounds them.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("slowing the host clock 50 times", tamper::slow_the_host_clock());
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int pass = 0; pass < 20; ++pass) {
    for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
    asm volatile("" ::: "memory");  // every pass is done
  }
}
