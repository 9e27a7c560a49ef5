// tests/cupti/gpu_kernels.cu: the kernels of known work behind gpu_kernels.h.
#include "gpu_kernels.h"

#include <cuda.h>
#include <cuda_bf16.h>
#include <dlfcn.h>
#include <cuda_runtime.h>

#include <map>
#include <stdexcept>

extern "C" __global__ void prologue_work(unsigned* word) { atomicAdd(word, 1u); }
extern "C" __global__ void prologue_mark(unsigned* word) { atomicAdd(word, 1u); }

namespace hone::cupti_test {
namespace {

__global__ void vec_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, std::int64_t n) {
  std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void fma_loop_kernel(float* out, float a, float b, int iterations) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = out[i];
#pragma unroll 4
  for (int k = 0; k < iterations; ++k) acc = fmaf(acc, a, b);
  out[i] = acc;
}

__global__ void strided_gather_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n, int stride) {
  std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * stride];
}

// 160 values live across a serial FMA chain: many registers, little parallelism, so the kernel is
// latency-bound with low occupancy (the occupancy rule must fire, not be excused as compute-bound).
constexpr int kLive = 160;

__global__ void __launch_bounds__(256, 1) register_heavy_kernel(const float* __restrict__ in, float* __restrict__ out) {
  float acc[kLive];
#pragma unroll
  for (int j = 0; j < kLive; ++j) acc[j] = in[(threadIdx.x + j * 37) & 4095];
  for (int it = 0; it < 32; ++it) {
#pragma unroll
    for (int j = 0; j < kLive; ++j) acc[j] = fmaf(acc[j], acc[(j + kLive - 1) % kLive], 0.5f);  // one serial chain
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < kLive; ++j) s += acc[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void accumulate_kernel(float* y) { atomicAdd(y, 1.0f); }

// 32x32 shared tile read down its columns without padding: 32-way bank conflicts on the loads.
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[static_cast<std::int64_t>(y) * n + x];
  __syncthreads();
  int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  out[static_cast<std::int64_t>(ty) * n + tx] = tile[threadIdx.x][threadIdx.y];
}

// Each lane loops a different number of times (the loop branch splits warps) over a dynamically
// indexed per-thread array (local memory).
__global__ void divergent_local_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float scratch[64];
  for (int j = 0; j < 64; ++j) scratch[j] = in[(i + j * 33) % n];
  float acc = 0;
  int trips = 4 * (threadIdx.x & 31);
  for (int j = 0; j < trips; ++j) acc = acc * 1.0001f + scratch[(i + j * 5) & 63];
  out[i] = acc;
}

// A bf16 matmul on CUDA cores (fp32 FMA, no tensor cores) over only 64 blocks: fewer blocks than SMs.
__global__ void matmul_bf16_naive_kernel(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                                         __nv_bfloat16* __restrict__ c, int m, int n, int k) {
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0;
  for (int p = 0; p < k; ++p) acc = fmaf(__bfloat162float(a[static_cast<std::int64_t>(row) * k + p]), __bfloat162float(b[static_cast<std::int64_t>(p) * n + col]), acc);
  c[static_cast<std::int64_t>(row) * n + col] = __float2bfloat16(acc);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

std::map<std::string, void*>& buffers() {
  static std::map<std::string, void*> b;
  return b;
}

// A zeroed device buffer of at least `bytes`, reused between launches.
float* buffer(const std::string& name, std::size_t bytes) {
  auto& b = buffers();
  auto it = b.find(name + std::to_string(bytes));
  if (it != b.end()) return static_cast<float*>(it->second);
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  check(cudaMemset(p, 0, bytes), "cudaMemset");
  b[name + std::to_string(bytes)] = p;
  return static_cast<float*>(p);
}

unsigned blocks_for(std::int64_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace

int gpu_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

DeviceProps device_props() {
  cudaDeviceProp p{};
  DeviceProps d;
  check(cudaGetDevice(&d.index), "cudaGetDevice");
  check(cudaGetDeviceProperties(&p, d.index), "cudaGetDeviceProperties");
  cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, d.index);
  cudaDeviceGetAttribute(&d.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, d.index);
  cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, d.index);
  d.name = p.name;
  d.arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  d.sm_count = p.multiProcessorCount;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.registers_per_sm = p.regsPerMultiprocessor;
  d.l2_bytes = p.l2CacheSize;
  d.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  d.shared_bytes_per_sm = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
  return d;
}

void vec_add(std::int64_t n) {
  std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  vec_add_kernel<<<blocks_for(n, 256), 256>>>(buffer("a", bytes), buffer("b", bytes), buffer("c", bytes), n);
  check(cudaGetLastError(), "vec_add launch");
  check(cudaDeviceSynchronize(), "vec_add");
}

void fma_loop(int threads, int iterations) {
  float* out = buffer("fma", static_cast<std::size_t>(threads) * sizeof(float));
  fma_loop_kernel<<<blocks_for(threads, 256), 256>>>(out, 0.999f, 0.001f, iterations);
  check(cudaGetLastError(), "fma_loop launch");
  check(cudaDeviceSynchronize(), "fma_loop");
}

void strided_gather(std::int64_t n, int stride) {
  float* in = buffer("gather_in", static_cast<std::size_t>(n) * stride * sizeof(float));
  float* out = buffer("gather_out", static_cast<std::size_t>(n) * sizeof(float));
  strided_gather_kernel<<<blocks_for(n, 256), 256>>>(in, out, n, stride);
  check(cudaGetLastError(), "strided_gather launch");
  check(cudaDeviceSynchronize(), "strided_gather");
}

int register_heavy(int blocks) {
  float* in = buffer("heavy_in", 4096 * sizeof(float));
  float* out = buffer("heavy_out", static_cast<std::size_t>(blocks) * 256 * sizeof(float));
  register_heavy_kernel<<<blocks, 256>>>(in, out);
  check(cudaGetLastError(), "register_heavy launch");
  check(cudaDeviceSynchronize(), "register_heavy");
  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, register_heavy_kernel), "cudaFuncGetAttributes");
  return attr.numRegs;
}

float accumulate_once() {
  float* y = buffer("acc", sizeof(float));
  check(cudaMemset(y, 0, sizeof(float)), "cudaMemset");
  accumulate_kernel<<<1, 1>>>(y);
  check(cudaGetLastError(), "accumulate launch");
  float host = -1;
  check(cudaMemcpy(&host, y, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return host;
}

void transpose_naive(int n) {
  std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(float);
  transpose_naive_kernel<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(buffer("t_in", bytes), buffer("t_out", bytes), n);
  check(cudaGetLastError(), "transpose_naive launch");
  check(cudaDeviceSynchronize(), "transpose_naive");
}

void divergent_local(int n) {
  std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  divergent_local_kernel<<<blocks_for(n, 256), 256>>>(buffer("d_in", bytes), buffer("d_out", bytes), n);
  check(cudaGetLastError(), "divergent_local launch");
  check(cudaDeviceSynchronize(), "divergent_local");
}

void matmul_bf16_naive(int m, int n, int k) {
  auto* a = reinterpret_cast<__nv_bfloat16*>(buffer("mm_a", static_cast<std::size_t>(m) * k * 2));
  auto* b = reinterpret_cast<__nv_bfloat16*>(buffer("mm_b", static_cast<std::size_t>(k) * n * 2));
  auto* c = reinterpret_cast<__nv_bfloat16*>(buffer("mm_c", static_cast<std::size_t>(m) * n * 2));
  matmul_bf16_naive_kernel<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
  check(cudaGetLastError(), "matmul_bf16_naive launch");
  check(cudaDeviceSynchronize(), "matmul_bf16_naive");
}

void release_buffers() {
  for (auto& [name, p] : buffers()) cudaFree(p);
  buffers().clear();
}

void* new_stream() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return s;
}

void delete_stream(void* stream) { cudaStreamDestroy(static_cast<cudaStream_t>(stream)); }

void work_by_runtime(void* stream) {
  prologue_work<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(reinterpret_cast<unsigned*>(buffer("work", 4)));
  check(cudaGetLastError(), "prologue_work launch");
}

void work_by_driver(void* stream) {
  cudaFunction_t function = nullptr;
  check(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(prologue_work)), "cudaGetFuncBySymbol");
  auto* word = reinterpret_cast<unsigned*>(buffer("work", 4));
  void* args[] = {&word};
  // The driver's own entry point, from the libcuda.so.1 the runtime loaded (linking libcuda would
  // keep this binary from starting on a machine without a driver, where its tests skip).
  using Launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                              void**, void**);
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto launch = libcuda ? reinterpret_cast<Launch>(dlsym(libcuda, "cuLaunchKernel")) : nullptr;
  if (!launch) throw std::runtime_error("cuLaunchKernel not found in libcuda.so.1");
  if (launch(reinterpret_cast<CUfunction>(function), 1, 1, 1, 1, 1, 1, 0, static_cast<CUstream>(stream), args,
             nullptr) != CUDA_SUCCESS)
    throw std::runtime_error("cuLaunchKernel (prologue_work) failed");
}

void work_by_launch_api(void* stream) {
  auto* word = reinterpret_cast<unsigned*>(buffer("work", 4));
  void* args[] = {&word};
  check(cudaLaunchKernel(reinterpret_cast<const void*>(prologue_work), dim3(1), dim3(1), args, 0,
                         static_cast<cudaStream_t>(stream)),
        "cudaLaunchKernel (prologue_work)");
}

int mark_by_runtime(void* stream) {
  prologue_mark<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(reinterpret_cast<unsigned*>(buffer("mark", 4)));
  return static_cast<int>(cudaGetLastError());
}

void synchronize_device() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

}  // namespace hone::cupti_test
