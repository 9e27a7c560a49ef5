// hone: task=../../../tasks/relu.py
// A plainly correct kernel, checked right after each tamperer in the same judge: it must pass.
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
}
