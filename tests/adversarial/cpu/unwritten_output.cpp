// hone: task=../tasks/relu_positive.py
// Cheat: never writes the output buffer, hoping it still holds a previous result.
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  (void)x;
  (void)out;
}
