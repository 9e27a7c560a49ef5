// LayerNorm over the last dimension, raw form for the CPU device: two passes per row (mean, then
// variance in double precision), then the scaled and shifted normalised row.
#include <cmath>

#include "hone.h"

void forward(hone::In<float> x, hone::In<float> ln_weight, hone::In<float> ln_bias, hone::Out<float> out,
             hone::Stream) {
  if (!x.is_contiguous()) throw hone::Error("layernorm: x must be contiguous");
  const int64_t cols = x.size(-1);
  if (ln_weight.numel() != cols || ln_bias.numel() != cols) throw hone::Error("layernorm: weight/bias size mismatch");
  const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  const float* w = ln_weight.data();
  const float* b = ln_bias.data();
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x.data() + r * cols;
    float* o = out.data() + r * cols;
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += in[c];
    const double mean = sum / static_cast<double>(cols);
    double squares = 0.0;
    for (int64_t c = 0; c < cols; ++c) squares += (in[c] - mean) * (in[c] - mean);
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(cols) + 1e-5);
    for (int64_t c = 0; c < cols; ++c) o[c] = static_cast<float>((in[c] - mean) * rstd) * w[c] + b[c];
  }
}
