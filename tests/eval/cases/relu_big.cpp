// A correct raw-form CPU ReLU over relu_big.py's million elements (the busy-machine test's kernel).
// hone: task=relu_big.py
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const float* in = x.data();
  float* o = out.data();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
}
