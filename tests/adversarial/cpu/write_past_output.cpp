// hone: task=../../../tasks/relu.py
// A bug, not a cheat: a correct ReLU whose tail loop runs 1024 elements past the output's end
// (the values are right; the memory after the buffer is not its to write).
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
  for (int64_t i = n; i < n + 1024; ++i) out.data()[i] = 0.f;
}
