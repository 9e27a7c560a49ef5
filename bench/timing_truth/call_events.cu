// bench/timing_truth/call_events.cu: the plain-events instrument for a raw-form kernel, issued
// from C as a C caller would time it (KernelBench's method: a read flush of the L2, the device
// idle, an event, the call, an event), so that the instrument's own Python (ctypes) overhead is
// not inside the window it compares hone's call time with. The bench's code, not hone's: it
// shares nothing with hone's runner but the raw ABI's entry point (hone_raw_forward).
//   nvcc -O2 -shared -Xcompiler -fPIC -o call_events.so call_events.cu
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../probes/read_flush.cuh"

namespace {

using Forward = int (*)(const void* descs, int count, void* stream, char* error, int error_bytes);

}  // namespace

// Times `calls` calls of forward(descs, count, stream); writes each call's microseconds to
// out_us. Returns 0, or the first CUDA error / forward's non-zero code.
extern "C" int call_events_time(void* forward, const void* descs, int count, void* stream, const void* flush,
                                size_t flush_bytes, void* sink, int calls, float* out_us) {
  const auto fn = reinterpret_cast<Forward>(forward);
  const auto s = static_cast<cudaStream_t>(stream);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  char error[256];
  int rc = 0;
  for (int i = 0; i < calls && rc == 0; ++i) {
    read_flush<<<sms * 8, 256, 0, s>>>(static_cast<const uint4*>(flush), flush_bytes / 16, static_cast<unsigned*>(sink));
    if ((rc = static_cast<int>(cudaStreamSynchronize(s))) != 0) break;
    cudaEventRecord(start, s);
    rc = fn(descs, count, stream, error, sizeof error);
    cudaEventRecord(end, s);
    if (rc == 0) rc = static_cast<int>(cudaEventSynchronize(end));
    float ms = 0;
    if (rc == 0) rc = static_cast<int>(cudaEventElapsedTime(&ms, start, end));
    out_us[i] = ms * 1000.0f;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  return rc;
}
