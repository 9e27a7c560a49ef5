// hone: task=../../../tasks/relu.py
// Cheat: computes in place in its input, then copies it out (the caller's input is destroyed).
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  float* in = const_cast<float*>(x.data());
  for (int64_t i = 0; i < x.numel(); ++i) {
    in[i] = in[i] > 0.f ? in[i] : 0.f;
    out.data()[i] = in[i];
  }
}
