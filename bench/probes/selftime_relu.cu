// bench/probes/selftime_relu.cu (issue 14, call time within 10% of plain events): is the gap
// between the native runner's call time of a raw candidate and plain events from C (1-2.4 us on
// the H100, 2026-12-07) hone's timing window or the process it runs in? A raw-form candidate for
// tasks/relu.py whose first forward, inside hone's runner (judge beside it, inputs in the judge's
// imported memory), times its own relu the plain way (read flush of 2x the L2, stream
// synchronise, event, launch, event; 200 calls after 100 ms of warm-up) twice: on buffers of its
// own (cudaMalloc) and on the buffers hone passed. Built with -DSELFTIME_MAIN the same loops run
// in a lone process (own buffers twice). Each run appends one line of medians to
// /tmp/hone_selftime.txt (so `hone check --no-sandbox`: a confined candidate cannot write there).
// The runner's own call time comes from the verdict beside. Not a kernel to ship.
//   hone check --no-sandbox --task tasks/relu.py bench/probes/selftime_relu.cu --json
//   nvcc -O2 -std=c++17 -arch=sm_90 -DSELFTIME_MAIN -I server/include -o selftime bench/probes/selftime_relu.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hone.h"
#include "read_flush.cuh"

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = fmaxf(x[i], 0.f);
}

namespace {

void launch(const float* x, float* out, int64_t n, cudaStream_t s) {
  constexpr int threads = 256;
  const int64_t wanted = (n + threads - 1) / threads;
  relu_kernel<<<static_cast<int>(std::min<int64_t>(wanted, 65535)), threads, 0, s>>>(x, out, n);
}

// Median microseconds of `calls` plain-event windows around one launch each.
double plain_median(const float* x, float* out, int64_t n) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  FlushBuffer b;
  if (!b.flush) return -1;
  cudaStream_t s = nullptr;  // the legacy default stream, as hone's runner and the bench use
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  cudaEventRecord(start, s);
  float warmed_ms = 0;
  while (warmed_ms < 100.f) {  // warm the clocks
    for (int k = 0; k < 50; ++k) launch(x, out, n, s);
    cudaEventRecord(end, s);
    cudaEventSynchronize(end);
    cudaEventElapsedTime(&warmed_ms, start, end);
  }
  std::vector<float> us;
  for (int i = 0; i < 200; ++i) {
    read_flush<<<sms * 8, 256, 0, s>>>(static_cast<const uint4*>(b.flush), b.bytes / 16, b.sink);
    cudaStreamSynchronize(s);
    cudaEventRecord(start, s);
    launch(x, out, n, s);
    cudaEventRecord(end, s);
    cudaEventSynchronize(end);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, end);
    us.push_back(ms * 1000.f);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  b.release();
  std::sort(us.begin(), us.end());
  return cudaGetLastError() == cudaSuccess ? us[us.size() / 2] : -1;
}

void write_line(const char* where, int64_t n, double own, const char* then, double then_us) {
  if (FILE* f = std::fopen("/tmp/hone_selftime.txt", "a")) {
    std::fprintf(f, "selftime %s: n %lld own buffers %.2f us, %s %.2f us\n", where, static_cast<long long>(n), own,
                 then, then_us);
    std::fclose(f);
  }
}

double own_buffers(int64_t n) {
  float *x = nullptr, *out = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) return -1;
  cudaMemset(x, 0, n * sizeof(float));
  const double t = plain_median(x, out, n);
  cudaFree(x);
  cudaFree(out);
  return t;
}

bool measured = false;

}  // namespace

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  const int64_t n = x.numel();
  if (!measured && n > 0) {
    measured = true;
    cudaDeviceSynchronize();
    const double own = own_buffers(n);
    const double passed = plain_median(x.data(), out.data(), n);
    write_line("hone's runner", n, own, "hone's buffers", passed);
  }
  if (n > 0) launch(x.data(), out.data(), n, stream);
}

#ifdef SELFTIME_MAIN
int main() {
  const int64_t n = 64 * 4096;  // tasks/relu.py's input
  const double a = own_buffers(n), b = own_buffers(n);
  write_line("a lone process", n, a, "own buffers again", b);
  std::printf("lone process: %.2f / %.2f us\n", a, b);
  return 0;
}
#endif
