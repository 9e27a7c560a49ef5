// bench/probes/call_gap_probe.cu: the C side of call_gap_probe.py. Times `calls` calls of one relu
// kernel with plain CUDA events on the legacy stream, the L2 flushed before each call and the
// device idle (as KernelBench and hone's call time do), with the knobs the probe turns: which
// flush (the bench's plain read, read_flush.cuh, or libhone_harness's hone_flush through
// `flush_fn`), and how the host waits for it (cudaDeviceSynchronize or cudaStreamSynchronize).
//   nvcc -O2 -shared -Xcompiler -fPIC -o call_gap_probe.so call_gap_probe.cu
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <chrono>
#include <thread>

#include "read_flush.cuh"

namespace {

__global__ void probe_relu(const float* x, float* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

using HoneFlush = int (*)(void* stream, const void* buffer, size_t bytes, void* sink);

}  // namespace

// Returns 0 or the first CUDA error; out_us[i] is call i's events in microseconds.
extern "C" int probe_calls(size_t n, size_t flush_bytes, int calls, int device_sync, void* flush_fn, float* out_us) {
  float *x = nullptr, *y = nullptr;
  void* flush = nullptr;
  unsigned* sink = nullptr;
  int rc = static_cast<int>(cudaMalloc(&x, n * sizeof(float)));
  if (!rc) rc = static_cast<int>(cudaMalloc(&y, n * sizeof(float)));
  if (!rc) rc = static_cast<int>(cudaMalloc(&flush, flush_bytes));
  if (!rc) rc = static_cast<int>(cudaMalloc(&sink, 64));
  if (!rc) rc = static_cast<int>(cudaMemset(x, 1, n * sizeof(float)));
  if (!rc) rc = static_cast<int>(cudaMemset(flush, 1, flush_bytes));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t start = nullptr, end = nullptr;
  if (!rc) rc = static_cast<int>(cudaEventCreate(&start));
  if (!rc) rc = static_cast<int>(cudaEventCreate(&end));
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  for (int i = -5; i < calls && rc == 0; ++i) {  // five untimed calls first
    if (flush_fn)
      rc = reinterpret_cast<HoneFlush>(flush_fn)(nullptr, flush, flush_bytes, sink);
    else
      read_flush<<<sms * 8, 256>>>(static_cast<const uint4*>(flush), flush_bytes / 16, sink);
    if (!rc) rc = static_cast<int>(device_sync ? cudaDeviceSynchronize() : cudaStreamSynchronize(nullptr));
    if (rc) break;
    cudaEventRecord(start, nullptr);
    probe_relu<<<blocks, 256>>>(x, y, n);
    cudaEventRecord(end, nullptr);
    rc = static_cast<int>(cudaEventSynchronize(end));
    float ms = 0;
    if (!rc) rc = static_cast<int>(cudaEventElapsedTime(&ms, start, end));
    if (i >= 0) out_us[i] = ms * 1000.0f;
  }
  if (start) cudaEventDestroy(start);
  if (end) cudaEventDestroy(end);
  cudaFree(x);
  cudaFree(y);
  cudaFree(flush);
  cudaFree(sink);
  return rc;
}

// A CUDA context in this process, held until `seconds` pass: the second context on the GPU that
// hone's judge holds beside its candidate process.
extern "C" int probe_hold_context(double seconds) {
  const int rc = static_cast<int>(cudaFree(nullptr));
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return rc;
}
