// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: wrong on purpose (it copies x, no ReLU) and, from its static
// constructor, rebinds torch.relu to the identity in the process that loads it, through the
// Python C API found with dlsym(RTLD_DEFAULT). In the old worker the reference ran after it in
// that process and computed the same wrong thing; now the reference runs in the judge.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("rebinding torch.relu to the identity", tamper::run_python(tamper::kRebindRelu));
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];
}
