// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), torch form: wrong on purpose (half of x) and, from its static
// constructor, makes every comparison pass in the process that loads it.
#include <torch/extension.h>

#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("patching the comparisons", tamper::run_python(tamper::kPatchCompare));
}

torch::Tensor forward(torch::Tensor x) { return x * 0.5; }
