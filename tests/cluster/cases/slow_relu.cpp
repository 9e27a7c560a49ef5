// A correct raw-form CPU ReLU whose first call in each candidate process takes ~2 s: a window in
// which a test can kill the judge running it, or cancel the Slurm job running it.
#include <unistd.h>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  static bool slept = false;
  if (!slept) {
    slept = true;
    ::usleep(2000000);
  }
  const float* in = x.data();
  float* o = out.data();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
}
