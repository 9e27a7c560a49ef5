// hone: task=../tasks/weak_softmax.py
// Passes, but must be flagged: writes zeros whatever the input. The task's outputs are all far
// below its tolerance, so zeros are "correct"; hone flags the task as weak and the output as constant.
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = 0.f;
}
