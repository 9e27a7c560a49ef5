// Softmax over rows, raw form for the CPU device: per row, the max, then exp(x - max) and its
// sum, then a scale by 1 / sum.
#include <cmath>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  if (x.dim() != 2 || !x.is_contiguous()) throw hone::Error("softmax: x must be a contiguous 2-D tensor");
  const int64_t rows = x.size(0), cols = x.size(1);
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x.data() + r * cols;
    float* o = out.data() + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, in[c]);
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      o[c] = std::exp(in[c] - m);
      sum += o[c];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int64_t c = 0; c < cols; ++c) o[c] *= inv;
  }
}
