// hone: task=../../../tasks/relu.py
// Tamperer, raw form: returns at once (a fast call) and writes the right answer from a thread
// 300 ms later, into output memory the caller reads after the call. The judge copies the outputs
// out of shared memory as soon as the reply arrives: it sees the poison it put there.
#include <chrono>
#include <thread>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const float* in = x.data();
  float* result = out.data();
  const int64_t n = x.numel();
  std::thread([in, result, n] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int64_t i = 0; i < n; ++i) result[i] = in[i] > 0.f ? in[i] : 0.f;
  }).detach();
}
