// hone: task=../tasks/relu_positive.py
// Cheat: launches nothing and never writes the output buffer.
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  (void)x;
  (void)out;
  (void)stream;
}
