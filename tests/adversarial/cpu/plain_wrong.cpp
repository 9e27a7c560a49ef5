// hone: task=../../../tasks/relu.py
// A plainly wrong kernel (a copy of x, no ReLU), checked right after each tamperer in the same
// judge: it must be incorrect, whatever the tamperer before it left behind.
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];
}
