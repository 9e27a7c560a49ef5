// Sends itself SIGKILL, as the kernel's out-of-memory killer would, without running out of memory:
// the verdict must not blame memory it can show was not short.
// hone: task=relu_small.py
#include <signal.h>
#include <unistd.h>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  ::kill(::getpid(), SIGKILL);
  out.data()[0] = x.data()[0];
}
