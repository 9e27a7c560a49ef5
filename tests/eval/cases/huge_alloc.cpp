// Asks for 1 TiB of host memory: the allocation fails (std::bad_alloc) and forward throws. The
// pointer is published through a volatile global so the compiler cannot elide the allocation.
// hone: task=relu_small.py
#include "hone.h"

float* volatile g_scratch = nullptr;

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  g_scratch = new float[std::size_t{1} << 38];
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
  delete[] g_scratch;
}
