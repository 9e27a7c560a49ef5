// A correct raw-form CPU ReLU: the control that must pass after every fault.
// hone: task=relu_small.py
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const float* in = x.data();
  float* o = out.data();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
}
