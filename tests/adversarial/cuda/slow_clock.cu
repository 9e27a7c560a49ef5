// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: correct but slow (each thread spins ~100 us before its ReLU),
// and from its static constructor it makes the clocks of the process that loads it report 50
// times less: CUDA's event timers (cudaEventElapsedTime, cuEventElapsedTime[_v2]) and libc's
// clock_gettime, hot-patched. The judge's own clock bounds the times that process reports.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("slowing the host clock 50 times", tamper::slow_the_host_clock());
  tamper::say("slowing CUDA's event timers 50 times", tamper::slow_the_event_timers());
}

__global__ void slow_relu_kernel(const float* x, float* out, int64_t n) {
  const long long started = clock64();
  while (clock64() - started < 200000) {
  }
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  slow_relu_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
