// hone: task=../../../tasks/relu.py
// Tamperer (issue 13), torch form: wrong on purpose (a copy of x, no ReLU) and, from its static
// constructor, rebinds torch.relu to the identity in the process that loads it (the python
// runner, which has no reference in it).
#include <torch/extension.h>

#include "tamper.h"

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("rebinding torch.relu to the identity", tamper::run_python(tamper::kRebindRelu));
}

torch::Tensor forward(torch::Tensor x) { return x.clone(); }
