// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), raw form: wrong on purpose (it copies x) and, from its static
// constructor, leaves patches behind for whatever is checked next: in its process torch.relu
// rebound, the comparisons passing and the clock slowed (the old worker kept all three for every
// later candidate), and in its working folder a `hone_worker` package that would shadow hone's
// in the next python runner started there and make every kernel compute relu. Each candidate
// process serves one candidate, and the judge empties a slot's folder before reusing it.
#include "hone.h"
#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("rebinding torch.relu", tamper::run_python(tamper::kRebindRelu));
  tamper::say("patching the comparisons", tamper::run_python(tamper::kPatchCompare));
  tamper::say("slowing the host clock", tamper::slow_the_host_clock());
  tamper::say("planting a hone_worker package in the working folder", tamper::plant_shadow_runner());
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];
}
