// Transpose, raw form for the CPU device, for hone's tuner: the matrix is walked in BLOCK x BLOCK
// tiles so reads and writes both stay in cache. The starting BLOCK = 1 is the naive loop, whose
// writes stride through memory a row apart; the tuner searches the declared values.
#include <algorithm>

#include "hone.h"

constexpr int BLOCK = 1;  // hone: tune BLOCK=1,4,8,16,32,64

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  if (x.dim() != 2 || !x.is_contiguous()) throw hone::Error("transpose: x must be a contiguous 2-D tensor");
  const int64_t rows = x.size(0), cols = x.size(1);
  const float* in = x.data();
  float* o = out.data();
  for (int64_t r0 = 0; r0 < rows; r0 += BLOCK)
    for (int64_t c0 = 0; c0 < cols; c0 += BLOCK)
      for (int64_t r = r0; r < std::min(rows, r0 + BLOCK); ++r)
        for (int64_t c = c0; c < std::min(cols, c0 + BLOCK); ++c) o[c * rows + r] = in[r * cols + c];
}
