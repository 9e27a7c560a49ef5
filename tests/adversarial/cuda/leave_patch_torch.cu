// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), torch form: wrong on purpose (a copy of x) and, from its static
// constructor, leaves patches behind for whatever is checked next (see leave_patch.cu).
#include <torch/extension.h>

#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("rebinding torch.relu", tamper::run_python(tamper::kRebindRelu));
  tamper::say("patching the comparisons", tamper::run_python(tamper::kPatchCompare));
  tamper::say("slowing the event timers", tamper::slow_the_event_timers());
  tamper::say("planting a hone_worker package in the working folder", tamper::plant_shadow_runner());
}

torch::Tensor forward(torch::Tensor x) { return x.clone(); }
