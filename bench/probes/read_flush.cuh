// bench/probes/read_flush.cuh: the plain-events instruments' L2 flush, as KernelBench flushes
// before each timed call: every thread reads its share of a buffer of 16-byte words (twice the
// L2 or more), and a store that never happens keeps the loads. Included by the bench's own C
// callers (timing_truth/call_events.cu, call_gap_probe.cu, selftime_relu.cu, self_events.cu), with
// the buffer they read (FlushBuffer: twice the L2, filled, and a sink word); hone's flush is
// libhone_harness's, which the bench does not share. Each includer gets its own copy (anonymous
// namespace): several of them are loaded into one process.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace {

__global__ void read_flush(const uint4* buffer, size_t words, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 w = buffer[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // never true in practice; keeps the loads
}

// Twice the L2 (60 MiB where the device does not say), filled, and a sink word; flush is nullptr
// where either allocation failed. release() frees both.
struct FlushBuffer {
  void* flush = nullptr;
  unsigned* sink = nullptr;
  size_t bytes = 0;

  FlushBuffer() {
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    bytes = 2 * static_cast<size_t>(l2 > 0 ? l2 : (60 << 20));
    if (cudaMalloc(&flush, bytes) != cudaSuccess || cudaMalloc(&sink, sizeof(unsigned)) != cudaSuccess) {
      release();
      return;
    }
    cudaMemset(flush, 1, bytes);
  }
  void release() {
    cudaFree(flush);
    cudaFree(sink);
    flush = nullptr;
    sink = nullptr;
  }
};

}  // namespace
