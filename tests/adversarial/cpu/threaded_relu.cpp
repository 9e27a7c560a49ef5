// hone: task=../../../tasks/relu.py
// Honest, and parallel: each call splits the ReLU over two threads of its own, started and joined
// inside the call. The judge counts the CPU time of a candidate's threads beside the timed loop's;
// work inside the calls, on every CPU, is the calls' own and must pass.
#include <thread>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const int64_t n = x.numel(), half = n / 2;
  const float* in = x.data();
  float* o = out.data();
  auto relu = [in, o](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
  };
  std::thread second(relu, half, n);
  relu(0, half);
  second.join();
}
