// Transpose, raw form, for hone's tuner: TILE x TILE tiles staged through shared memory (padded
// against bank conflicts), each block TILE x BLOCK_ROWS threads. The starting values (8 x 1: eight
// threads per block) leave most of each SM idle; the tuner searches the declared values.
#include "hone.h"

#define TILE 8  // hone: tune TILE=8,16,32
constexpr int BLOCK_ROWS = 1;  // hone: tune BLOCK_ROWS=1,2,4,8

static_assert(TILE % BLOCK_ROWS == 0, "TILE must be a multiple of BLOCK_ROWS");

__global__ void transpose_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t rows, int64_t cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * TILE + threadIdx.x;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * TILE;
  for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
    const int64_t r = r0 + j;
    if (r < rows && c < cols) tile[j][threadIdx.x] = x[r * cols + c];
  }
  __syncthreads();
  // out has shape (cols, rows): write row (blockIdx.x * TILE + j), column (r0 + threadIdx.x).
  const int64_t oc = r0 + threadIdx.x;
  for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
    const int64_t orow = static_cast<int64_t>(blockIdx.x) * TILE + j;
    if (orow < cols && oc < rows) out[orow * rows + oc] = tile[threadIdx.x][j];
  }
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  if (x.dim() != 2 || !x.is_contiguous()) throw hone::Error("transpose: x must be a contiguous 2-D tensor");
  const int64_t rows = x.size(0), cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const dim3 block(TILE, BLOCK_ROWS);
  const dim3 grid(static_cast<unsigned>((cols + TILE - 1) / TILE), static_cast<unsigned>((rows + TILE - 1) / TILE));
  transpose_kernel<<<grid, block, 0, stream>>>(x.data(), out.data(), rows, cols);
}
