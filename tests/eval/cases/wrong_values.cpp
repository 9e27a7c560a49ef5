// Off by 0.5 everywhere: incorrect, with the first mismatch reported.
// hone: task=relu_small.py
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = (x.data()[i] > 0.f ? x.data()[i] : 0.f) + 0.5f;
}
