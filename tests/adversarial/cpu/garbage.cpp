// hone: task=../../../tasks/relu.py
// Cheat: returns non-deterministic garbage of a plausible magnitude.
#include <random>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> value(0.f, 2.f);
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = value(rng);
}
