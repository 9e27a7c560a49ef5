// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: wrong on purpose (it copies x, no ReLU) and, from its static
// constructor, rebinds torch.relu to the identity in the process that loads it, through the
// Python C API found with dlsym(RTLD_DEFAULT) (hone-runner has no Python; the judge, where the
// reference runs, is another process).
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("rebinding torch.relu to the identity", tamper::run_python(tamper::kRebindRelu));
}

__global__ void copy_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  copy_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
