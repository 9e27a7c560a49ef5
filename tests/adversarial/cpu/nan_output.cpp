// hone: task=../../../tasks/relu.py
// Cheat: writes NaN everywhere (a harness that compares with NaN-unaware code may pass it).
#include <cmath>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = std::nanf("");
}
