// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), torch form: correct but slow (each thread spins ~100 us before its ReLU),
// and from its static constructor it makes CUDA's event timers and the host clock of the
// process that loads it report 50 times less.
#include <c10/cuda/CUDAStream.h>
#include <torch/extension.h>

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

torch::Tensor forward(torch::Tensor x) {
  torch::Tensor input = x.contiguous();
  torch::Tensor out = torch::empty_like(input);
  const int64_t n = input.numel();
  slow_relu_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, c10::cuda::getCurrentCUDAStream().stream()>>>(
      input.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
