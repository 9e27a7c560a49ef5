// hone: task=../../../tasks/relu.py
// Cheat: computes only the first half of the output (a bounds bug or a deliberate shortcut).
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const int64_t half = x.numel() / 2;
  for (int64_t i = 0; i < half; ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
}
