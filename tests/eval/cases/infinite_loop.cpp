// Never returns: the check hits its deadline and the worker is killed.
// hone: task=relu_small.py
#include "hone.h"

void forward(hone::In<float>, hone::Out<float> out, hone::Stream) {
  volatile bool forever = true;
  while (forever) out.data()[0] = 0.f;
}
