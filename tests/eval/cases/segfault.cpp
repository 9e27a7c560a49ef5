// Writes through a null pointer: the worker dies with SIGSEGV.
// hone: task=relu_small.py
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  volatile float* nowhere = nullptr;
  *nowhere = x.data()[0];
  out.data()[0] = 0.f;
}
