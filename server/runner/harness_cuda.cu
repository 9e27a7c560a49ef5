// runner/harness_cuda.cu: libhone_harness's kernels (hone_flush, hone_hold, hone_spin,
// hone_marker, named exactly so in CUPTI records) and the C functions that launch them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness.h"
#include "mix_choice.h"

namespace {

constexpr unsigned long long kMaxHoldNs = 120ull * 1000 * 1000 * 1000;
constexpr unsigned long long kMaxSpinNs = 10ull * 1000 * 1000 * 1000;
constexpr int kFlushThreads = 256;
constexpr int kFlushBlocksPerSm = 8;
constexpr int kMaxDevices = 64;

thread_local cudaError_t t_last_error = cudaSuccess;

int record(cudaError_t e) {
  if (e != cudaSuccess) t_last_error = e;
  return static_cast<int>(e);
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A system-scope acquire load: sees the host's store to registered memory, never a cached copy.
__device__ __forceinline__ unsigned load_acquire_system(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// A system-scope store, then a system fence: visible to the host and to other devices.
__device__ __forceinline__ void store_system(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.sys.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
  __threadfence_system();
}

int multiprocessors() {
  static int counts[kMaxDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return 1;
  if (counts[device] == 0) {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n <= 0) n = 1;
    counts[device] = n;
  }
  return counts[device];
}

}  // namespace

// The SMs' instruction caches: ncu's cache control flushes "all caches" before each kernel, and a
// read of the L2 leaves the timed kernel's code in the SMs' instruction caches (hone_flush's own
// code is small). So warp 0 of every block of hone_flush also runs this: ~190 KB of straight-line
// code (a dependent chain ptxas cannot fold), which evicts it. On the H100 (2026-12-05,
// bench/probes/ncu_gap_probe.py, two runs) the Range Profiler's duration of a relu of 2^16-2^22
// elements after the read alone read 0.13-0.35 us below ncu's; with the code evicted too,
// 0.03-0.19 us. It costs each flush ~60 us, outside every timed window.
#define HONE_EVICT_STEP(i)                                                   \
  x = __funnelshift_l(x, x, ((i) * 7u) % 31u + 1u) ^ (0x9e3779b1u * ((i) + 1u)); \
  y = y * ((0x7f4a7c15u * ((i) + 7u)) | 1u) + x;
#define HONE_EVICT_4(i) HONE_EVICT_STEP(i) HONE_EVICT_STEP((i) + 1u) HONE_EVICT_STEP((i) + 2u) HONE_EVICT_STEP((i) + 3u)
#define HONE_EVICT_16(i) HONE_EVICT_4(i) HONE_EVICT_4((i) + 4u) HONE_EVICT_4((i) + 8u) HONE_EVICT_4((i) + 12u)
#define HONE_EVICT_64(i) HONE_EVICT_16(i) HONE_EVICT_16((i) + 16u) HONE_EVICT_16((i) + 32u) HONE_EVICT_16((i) + 48u)
#define HONE_EVICT_256(i) HONE_EVICT_64(i) HONE_EVICT_64((i) + 64u) HONE_EVICT_64((i) + 128u) HONE_EVICT_64((i) + 192u)
#define HONE_EVICT_1024(i) \
  HONE_EVICT_256(i) HONE_EVICT_256((i) + 256u) HONE_EVICT_256((i) + 512u) HONE_EVICT_256((i) + 768u)

__device__ __noinline__ unsigned evict_instruction_caches(unsigned seed) {
  unsigned x = seed, y = seed * 0x85ebca6bu + 1u;
  HONE_EVICT_1024(0u) HONE_EVICT_1024(1024u) HONE_EVICT_1024(2048u) HONE_EVICT_1024(3072u)
  return x ^ y;
}

// How the flush goes through its buffer: kFlushRead reads every 16-byte word once (the default);
// two diagnostic modes, chosen by $HONE_FLUSH_MODE (bench/timing_truth's flush probe): kFlushReadTwice
// reads each block's 64 KiB chunk twice at the L2 (ld.global.cg; the second read hits, as a line
// a kernel reuses does), kFlushWrite stores every word at the L2 (st.global.cg, the bytes it held).
enum FlushMode : unsigned { kFlushRead = 0, kFlushReadTwice = 1, kFlushWrite = 2 };

__device__ __forceinline__ uint4 load_l2(const uint4* p) {
  uint4 w;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w) : "l"(p));
  return w;
}

// The flush buffer's 16-byte words in the chosen mode; returns their XOR (the sink's input).
__device__ unsigned flush_words(const uint4* body, size_t words, unsigned mode) {
  unsigned acc = 0;
  const size_t first = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const size_t step = size_t{gridDim.x} * blockDim.x;
  if (mode == kFlushReadTwice) {
    constexpr size_t kChunk = 64 * 1024 / 16;
    for (size_t c = size_t{blockIdx.x} * kChunk; c < words; c += size_t{gridDim.x} * kChunk) {
      const size_t end = c + kChunk < words ? c + kChunk : words;
      for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = c + threadIdx.x; i < end; i += blockDim.x) {
          const uint4 w = load_l2(body + i);
          acc ^= w.x ^ w.y ^ w.z ^ w.w;
        }
        __syncthreads();
      }
    }
    return acc;
  }
  if (mode == kFlushWrite) {
    for (size_t i = first; i < words; i += step)
      asm volatile("st.global.cg.v4.u32 [%0], {%1, %1, %1, %1};" : : "l"(body + i), "r"(0x01010101u) : "memory");
    return acc;
  }
#pragma unroll 4
  for (size_t i = first; i < words; i += step) {
    const uint4 w = body[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  return acc;
}

// evict_code: warp 0 of each block also runs evict_instruction_caches (hone_harness_flush).
template <bool evict_code>
__device__ void flush_body(const unsigned char* buffer, size_t bytes, unsigned* sink, unsigned mode) {
  const auto address = reinterpret_cast<std::uintptr_t>(buffer);
  const size_t misaligned = (16 - (address & 15)) & 15;
  const size_t head = misaligned < bytes ? misaligned : bytes;
  const size_t words = (bytes - head) / 16;
  const size_t tail = head + words * 16;
  const auto* body = reinterpret_cast<const uint4*>(buffer + head);
  const size_t first = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc = flush_words(body, words, mode);
  // The bytes before and after the 16-byte words, each in its lane of an aligned 32-bit word.
  if (first < head) acc ^= unsigned{buffer[first]} << (8 * ((address + first) & 3));
  if (first < bytes - tail) acc ^= unsigned{buffer[tail + first]} << (8 * ((address + tail + first) & 3));
  if constexpr (evict_code) {
    __shared__ volatile unsigned evicted;  // its code is what runs for; a volatile store keeps the call
    if (threadIdx.x == 0) evicted = evict_instruction_caches(acc);
  }
  for (int offset = 16; offset > 0; offset >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, offset);
  __shared__ unsigned per_warp[32];
  if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned block = 0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) block ^= per_warp[w];
    atomicXor(sink, block);
  }
}

extern "C" __global__ void hone_flush(const unsigned char* buffer, size_t bytes, unsigned* sink, unsigned mode) {
  flush_body<true>(buffer, bytes, sink, mode);
}

extern "C" __global__ void hone_flush_l2(const unsigned char* buffer, size_t bytes, unsigned* sink, unsigned mode) {
  flush_body<false>(buffer, bytes, sink, mode);
}

extern "C" __global__ void hone_hold(const unsigned* release, unsigned long long timeout_ns, unsigned* timed_out) {
  const unsigned long long start = global_ns();
  while (load_acquire_system(release) == 0) {
    if (global_ns() - start >= timeout_ns) {
      if (timed_out) store_system(timed_out, 1u);
      return;
    }
    __nanosleep(256);
  }
}

extern "C" __global__ void hone_spin(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) __nanosleep(64);
}

extern "C" __global__ void hone_marker(unsigned* word) { store_system(word, 1u); }

struct MixSets {
  const void* set[hone::harness::kMaxMixSets];
};

template <typename T>
__device__ __forceinline__ void mix_elements(T* dst, const MixSets& sets, unsigned n_sets, size_t count, unsigned seed) {
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  for (size_t e = size_t{blockIdx.x} * blockDim.x + threadIdx.x; e < count; e += stride)
    dst[e] = static_cast<const T*>(sets.set[hone::harness::mix_hash(seed, e) % n_sets])[e];
}

extern "C" __global__ void hone_mix(void* dst, MixSets sets, unsigned n_sets, unsigned elem_bytes, size_t count,
                                    unsigned seed) {
  switch (elem_bytes) {
    case 1: mix_elements(static_cast<std::uint8_t*>(dst), sets, n_sets, count, seed); break;
    case 2: mix_elements(static_cast<std::uint16_t*>(dst), sets, n_sets, count, seed); break;
    case 4: mix_elements(static_cast<std::uint32_t*>(dst), sets, n_sets, count, seed); break;
    default: mix_elements(static_cast<std::uint64_t*>(dst), sets, n_sets, count, seed); break;
  }
}

extern "C" int hone_harness_has_cuda(void) { return 1; }

namespace {

using FlushKernel = void (*)(const unsigned char*, size_t, unsigned*, unsigned);

// $HONE_FLUSH_MODE: "read" (the default), "read2" or "write" (FlushMode), read once a process.
unsigned flush_mode() {
  static const unsigned mode = [] {
    const char* v = std::getenv("HONE_FLUSH_MODE");
    if (v && std::strcmp(v, "read2") == 0) return unsigned{kFlushReadTwice};
    if (v && std::strcmp(v, "write") == 0) return unsigned{kFlushWrite};
    return unsigned{kFlushRead};
  }();
  return mode;
}

int launch_flush(FlushKernel kernel, void* stream, const void* buffer, size_t bytes, void* sink) {
  if (!buffer || !sink) return record(cudaErrorInvalidValue);
  if (bytes == 0) return 0;
  const size_t wanted = (bytes / 16 + kFlushThreads - 1) / kFlushThreads;
  const size_t limit = size_t{static_cast<unsigned>(multiprocessors())} * kFlushBlocksPerSm;
  const unsigned blocks = static_cast<unsigned>(std::max<size_t>(1, std::min(wanted, limit)));
  kernel<<<blocks, kFlushThreads, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const unsigned char*>(buffer),
                                                                         bytes, static_cast<unsigned*>(sink), flush_mode());
  return record(cudaGetLastError());
}

}  // namespace

extern "C" int hone_harness_flush(void* stream, const void* buffer, size_t bytes, void* sink) {
  return launch_flush(hone_flush, stream, buffer, bytes, sink);
}

extern "C" int hone_harness_flush_l2(void* stream, const void* buffer, size_t bytes, void* sink) {
  return launch_flush(hone_flush_l2, stream, buffer, bytes, sink);
}

extern "C" int hone_harness_hold(void* stream, const void* release_word, unsigned long long timeout_ns,
                                 void* timed_out_word) {
  if (!release_word) return record(cudaErrorInvalidValue);
  hone_hold<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const unsigned*>(release_word),
                                                            std::min(timeout_ns, kMaxHoldNs),
                                                            static_cast<unsigned*>(timed_out_word));
  return record(cudaGetLastError());
}

extern "C" int hone_harness_spin(void* stream, unsigned long long ns) {
  hone_spin<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(std::min(ns, kMaxSpinNs));
  return record(cudaGetLastError());
}

extern "C" int hone_harness_marker(void* stream, void* word) {
  if (!word) return record(cudaErrorInvalidValue);
  hone_marker<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<unsigned*>(word));
  return record(cudaGetLastError());
}

extern "C" int hone_harness_mix(void* stream, void* dst, const void* const* sets, int n_sets, size_t elem_bytes,
                                size_t count, unsigned seed) {
  if (!dst || !sets || n_sets < 1 || n_sets > hone::harness::kMaxMixSets ||
      (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8))
    return record(cudaErrorInvalidValue);
  MixSets by_value{};
  for (int k = 0; k < n_sets; ++k) {
    if (!sets[k]) return record(cudaErrorInvalidValue);
    by_value.set[k] = sets[k];
  }
  if (count == 0) return 0;
  const size_t wanted = (count + kFlushThreads - 1) / kFlushThreads;
  const size_t limit = size_t{static_cast<unsigned>(multiprocessors())} * kFlushBlocksPerSm;
  const unsigned blocks = static_cast<unsigned>(std::max<size_t>(1, std::min(wanted, limit)));
  hone_mix<<<blocks, kFlushThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      dst, by_value, static_cast<unsigned>(n_sets), static_cast<unsigned>(elem_bytes), count, seed);
  return record(cudaGetLastError());
}

extern "C" int hone_harness_register(void* host, size_t bytes, void** device_ptr) {
  if (!device_ptr) return record(cudaErrorInvalidValue);
  *device_ptr = nullptr;
  cudaError_t e = cudaHostRegister(host, bytes, cudaHostRegisterMapped);
  if (e != cudaSuccess) return record(e);
  e = cudaHostGetDevicePointer(device_ptr, host, 0);
  if (e != cudaSuccess) {
    cudaHostUnregister(host);
    *device_ptr = nullptr;
  }
  return record(e);
}

extern "C" int hone_harness_unregister(void* host) { return record(cudaHostUnregister(host)); }

extern "C" int hone_harness_last_error(char* text, int len) {
  if (text && len > 0) {
    if (t_last_error == cudaSuccess)
      text[0] = '\0';
    else
      std::snprintf(text, static_cast<size_t>(len), "%s: %s", cudaGetErrorName(t_last_error),
                    cudaGetErrorString(t_last_error));
  }
  return static_cast<int>(t_last_error);
}
