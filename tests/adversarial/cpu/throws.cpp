// hone: task=../../../tasks/relu.py
// Fault: forward throws; the verdict must carry its message.
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  (void)x;
  (void)out;
  throw hone::Error("relu: this kernel gives up");
}
