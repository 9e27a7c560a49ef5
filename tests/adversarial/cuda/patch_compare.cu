// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: wrong on purpose (half of x) and, from its static constructor,
// makes every comparison pass in the process that loads it (torch.allclose, torch.equal, hone's
// compare_outputs). The judge compares in its own process.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("patching the comparisons", tamper::run_python(tamper::kPatchCompare));
}

__global__ void half_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * x[i];
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  half_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
