// Takes two inputs where the task has one: the kernel does not fit the task.
// hone: task=relu_small.py
#include "hone.h"

void forward(hone::In<float> x, hone::In<float> y, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] + y.data()[i];
}
