// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: wrong on purpose (half of x) and, from its static constructor,
// makes every comparison pass in the process that loads it: torch.allclose, torch.equal and
// hone's own compare_outputs. The judge compares in its own process.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("patching the comparisons", tamper::run_python(tamper::kPatchCompare));
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = 0.5f * x.data()[i];
}
