// bench/probes/discard_l2.cu: spread_probe's L2 invalidation. A read flush leaves the L2 full of
// the flush buffer's clean lines; ncu's cache control leaves it invalidated. `discard.global.L2`
// drops a 128-byte line without writing it back, so a read flush followed by this kernel over the
// flush buffer leaves the L2 (nearly) empty, as ncu's does, for comparing the per-call spread.
//   nvcc -O2 -shared -Xcompiler -fPIC -o discard_l2.so discard_l2.cu
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace {

__global__ void discard_lines(const unsigned char* buffer, size_t lines) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < lines; i += size_t(gridDim.x) * blockDim.x) {
    const unsigned char* line = buffer + i * 128;
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(line) : "memory");
  }
}

}  // namespace

// Discards every whole 128-byte line of [buffer, buffer + bytes) (buffer 128-byte aligned) on
// `stream`; returns the launch's CUDA error.
extern "C" int probe_discard_l2(void* stream, const void* buffer, size_t bytes) {
  const size_t lines = bytes / 128;
  if (lines == 0) return 0;
  discard_lines<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const unsigned char*>(buffer), lines);
  return static_cast<int>(cudaGetLastError());
}
