// cuda_emulation.h: the part of CUDA that tasks/attention/flash_attention.cuh uses, on the host, so
// that the GPU kernel's own text runs as a CPU raw-form kernel through `hone check` (used by
// tests/attention; there is no GPU on the build machine). Every CUDA thread is a fiber; blocks
// run one after another; __syncthreads, __syncwarp, shuffles and WMMA operations are barriers of
// the block or the warp, wgmma operations of the warpgroup (wgmma_emulation.h; a divergent one is
// reported as a deadlock). It is strict where real
// hardware is: WMMA pointers must be 32-byte aligned with legal strides, cp.async copies land only
// at __pipeline_wait_prior (reading them earlier sees the poison left in shared memory: NaN), and
// each WMMA fragment type maps its elements to matrix positions by its own scrambled permutation,
// so a kernel that assumed a layout would compute garbage. Include it first, then the kernel.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "hone.h"

#if !defined(__x86_64__)
#error "cuda_emulation.h switches fibers with x86-64 assembly"
#endif

#define HONE_ATTENTION_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n)
#define __shared__

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline float2 make_float2(float x, float y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
template <class T>
void __stcg(T* p, T v) {
  *p = v;
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

// bfloat16 with round-to-nearest-even conversions, as cuda_bf16.h.
struct __nv_bfloat16 {
  std::uint16_t bits;
};
struct __nv_bfloat162 {
  __nv_bfloat16 x, y;
};
inline float __bfloat162float(__nv_bfloat16 h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline __nv_bfloat16 __float2bfloat16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f)) return {0x7fc0};
  u += 0x7fffu + ((u >> 16) & 1u);
  return {static_cast<std::uint16_t>(u >> 16)};
}
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__float2bfloat16(a), __float2bfloat16(b)}; }

namespace hone {
template <>
struct dtype_of<__nv_bfloat16> {
  static constexpr DType value = DType::BFloat16;
};
}  // namespace hone

// The runtime calls the kernel's launcher makes.
using cudaStream_t = void*;
enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
enum cudaDeviceAttr {
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

namespace hone_emulation {

constexpr std::size_t kMaxSharedBytes = 232448;  // an H100/H200 block's opt-in maximum (227 KiB)
constexpr std::size_t kStackBytes = 128 * 1024;

struct Barrier {
  int count = 0, arrived = 0;
  unsigned generation = 0;
};

// What a warp's lanes exchange (shuffles, WMMA operands). Double-buffered by the lanes' own count
// of exchanges: buffer n % 2 is written again two exchanges later, after every lane has passed
// exchange n + 1's barrier, so one barrier per exchange suffices.
struct WarpShared {
  Barrier barrier;
  float a[2][256], b[2][256], c[2][256];
  float lanes[2][32];
};

struct CopyGroup {
  std::vector<std::array<const void*, 2>> copies;  // {dst, src}, 16 bytes each
};

struct Fiber {
  void* sp = nullptr;  // the saved stack pointer while the fiber is switched out
  char* stack = nullptr;  // kStackBytes, from stacks()
  dim3 thread_idx;
  bool done = false;
  const Barrier* waiting_on = nullptr;
  unsigned waiting_generation = 0;
  CopyGroup open;
  std::deque<CopyGroup> committed;
  unsigned exchanges = 0;  // warp exchanges this thread took part in
  unsigned group_exchanges = 0;  // warpgroup exchanges (wgmma's register operand A)
  std::unordered_map<float*, float> mma_pending;  // wgmma results by register, written at wait_all
};

// A warpgroup's (4 warps, 128 threads) barrier and the A operand its wgmma gathers, double-buffered
// as WarpShared's.
struct GroupShared {
  Barrier barrier;
  float a[2][64][16];
};

struct Block {
  dim3 block_idx, grid_dim, block_dim;
  std::vector<Fiber> fibers;
  std::vector<WarpShared> warps;
  std::vector<GroupShared> groups;
  Barrier barrier;
  void* scheduler_sp = nullptr;
  int current = 0;
  std::string error;
  std::function<void()> body;
};

inline Block*& block() {
  static Block* b = nullptr;
  return b;
}
inline Fiber& fiber() { return block()->fibers[static_cast<std::size_t>(block()->current)]; }
inline int lane() { return static_cast<int>(fiber().thread_idx.x % 32); }
inline WarpShared& warp() { return block()->warps[fiber().thread_idx.x / 32]; }

[[noreturn]] inline void fail(const std::string& message) { throw std::runtime_error("cuda emulation: " + message); }

// Saves the callee-saved registers and the stack pointer into *save, loads those saved at load
// (x86-64 System V; a few nanoseconds, where swapcontext makes a system call).
extern "C" void hone_emulation_switch(void** save, void* load);
asm(R"(
  .text
  .p2align 4
  .type hone_emulation_switch, @function
hone_emulation_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size hone_emulation_switch, .-hone_emulation_switch
)");

inline void to_scheduler() { hone_emulation_switch(&fiber().sp, block()->scheduler_sp); }

// Waits until every participant of `b` arrived; the last one to arrive wakes the others.
inline void arrive_and_wait(Barrier& b) {
  if (++b.arrived == b.count) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  Fiber& f = fiber();
  f.waiting_on = &b;
  f.waiting_generation = b.generation;
  to_scheduler();
}

// Where a new fiber starts: runs the block's body as the current thread, then returns for good.
[[noreturn]] inline void fiber_main() {
  Block& blk = *block();
  Fiber& f = fiber();
  try {
    blk.body();
    if (!f.committed.empty() || !f.open.copies.empty()) fail("a thread ended with cp.async copies it never waited for");
    if (!f.mma_pending.empty()) fail("a thread ended with wgmma results it never waited for");
  } catch (const std::exception& e) {
    if (blk.error.empty()) blk.error = e.what();
  }
  f.done = true;
  to_scheduler();
  __builtin_unreachable();
}

// A stack whose first switch pops six zero registers and returns into fiber_main, with the stack
// aligned as at a function's entry.
inline void prepare(Fiber& f) {
  auto top = reinterpret_cast<std::uintptr_t>(f.stack + kStackBytes) & ~std::uintptr_t{15};
  auto* slot = reinterpret_cast<void**>(top);
  *--slot = nullptr;                                       // fiber_main's (never used) return address
  *--slot = reinterpret_cast<void*>(&fiber_main);          // where the switch's ret goes
  for (int i = 0; i < 6; ++i) *--slot = nullptr;           // r15, r14, r13, r12, rbx, rbp
  f.sp = slot;
}

inline bool runnable(const Fiber& f) {
  return !f.done && (f.waiting_on == nullptr || f.waiting_on->generation != f.waiting_generation);
}

// Runs one block to completion; throws the first error a thread raised, or a deadlock.
inline void run_block(Block& blk) {
  static std::vector<std::unique_ptr<char[]>> stacks;  // one per thread of the largest block yet
  while (stacks.size() < blk.fibers.size()) stacks.emplace_back(new char[kStackBytes]);
  block() = &blk;
  const int n = static_cast<int>(blk.fibers.size());
  for (int i = 0; i < n; ++i) {
    blk.fibers[static_cast<std::size_t>(i)].stack = stacks[static_cast<std::size_t>(i)].get();
    prepare(blk.fibers[static_cast<std::size_t>(i)]);
  }
  for (int left = n; left > 0 && blk.error.empty();) {
    bool progressed = false;
    for (int i = 0; i < n && blk.error.empty(); ++i) {
      Fiber& f = blk.fibers[static_cast<std::size_t>(i)];
      if (!runnable(f)) continue;
      f.waiting_on = nullptr;
      blk.current = i;
      hone_emulation_switch(&blk.scheduler_sp, f.sp);
      progressed = true;
      if (f.done) --left;
    }
    if (!progressed && left > 0 && blk.error.empty())
      blk.error = "deadlock: threads wait at barriers the others never reach (a divergent __syncthreads, "
                  "__syncwarp, shuffle or WMMA operation)";
  }
  block() = nullptr;
  if (!blk.error.empty()) throw hone::Error(blk.error.c_str());
}

template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, dim3 threads, std::size_t shared_bytes, Args... args);

}  // namespace hone_emulation

namespace hone_attention {
alignas(1024) inline unsigned char smem[hone_emulation::kMaxSharedBytes];  // the block's dynamic shared memory
}

#define threadIdx (::hone_emulation::fiber().thread_idx)
#define blockIdx (::hone_emulation::block()->block_idx)
#define gridDim (::hone_emulation::block()->grid_dim)
#define blockDim (::hone_emulation::block()->block_dim)

inline void __syncthreads() { hone_emulation::arrive_and_wait(hone_emulation::block()->barrier); }
inline void __syncwarp(unsigned = 0xffffffffu) { hone_emulation::arrive_and_wait(hone_emulation::warp().barrier); }
inline float __shfl_xor_sync(unsigned, float v, int lane_mask) {
  auto& w = hone_emulation::warp();
  const unsigned turn = hone_emulation::fiber().exchanges++ % 2;
  w.lanes[turn][hone_emulation::lane()] = v;
  hone_emulation::arrive_and_wait(w.barrier);
  return w.lanes[turn][hone_emulation::lane() ^ lane_mask];
}

// cp.async: queued by the issuing thread, copied when that thread waits for its group.
inline void __pipeline_memcpy_async(void* dst, const void* src, std::size_t size, std::size_t zfill = 0) {
  if (size != 16 || zfill != 0) hone_emulation::fail("only 16-byte copies are emulated");
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 || reinterpret_cast<std::uintptr_t>(src) % 16)
    hone_emulation::fail("cp.async addresses must be 16-byte aligned");
  const auto* base = hone_attention::smem;
  if (static_cast<const unsigned char*>(dst) < base || static_cast<const unsigned char*>(dst) + 16 > base + sizeof hone_attention::smem)
    hone_emulation::fail("cp.async destination outside shared memory");
  hone_emulation::fiber().open.copies.push_back({dst, src});
}
inline void __pipeline_commit() {
  auto& f = hone_emulation::fiber();
  f.committed.push_back(std::move(f.open));
  f.open = {};
}
inline void __pipeline_wait_prior(std::size_t prior) {
  auto& f = hone_emulation::fiber();
  while (f.committed.size() > prior) {
    for (const auto& c : f.committed.front().copies) std::memcpy(const_cast<void*>(c[0]), c[1], 16);
    f.committed.pop_front();
  }
}

inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
// The emulated device is a 9.0 GPU (an H200's limits), built for sm_90a.
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int) {
  *value = attr == cudaDevAttrComputeCapabilityMajor   ? 9
           : attr == cudaDevAttrComputeCapabilityMinor ? 0
                                                       : static_cast<int>(hone_emulation::kMaxSharedBytes);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count) {
  if (count > sizeof symbol) return cudaErrorInvalidValue;
  std::memcpy(dst, &symbol, count);
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
// A shared-memory pointer's address in the shared window: its offset in the emulated block's.
inline std::size_t __cvta_generic_to_shared(const void* p) {
  const auto* c = static_cast<const unsigned char*>(p);
  if (c < hone_attention::smem || c >= hone_attention::smem + hone_emulation::kMaxSharedBytes)
    hone_emulation::fail("__cvta_generic_to_shared of a pointer outside shared memory");
  return static_cast<std::size_t>(c - hone_attention::smem);
}
template <class F>
cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int value) {
  return value >= 0 && static_cast<std::size_t>(value) <= hone_emulation::kMaxSharedBytes ? cudaSuccess
                                                                                          : cudaErrorInvalidValue;
}
inline const char* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "invalid argument"; }

#include "wmma_emulation.h"

template <class Kernel, class... Args>
void hone_emulation::launch(Kernel kernel, dim3 grid, dim3 threads, std::size_t shared_bytes, Args... args) {
  if (shared_bytes > kMaxSharedBytes) fail("more dynamic shared memory than a block may have");
  if (threads.x % 32 != 0 || threads.y != 1 || threads.z != 1) fail("only 1-D blocks of whole warps are emulated");
  for (unsigned y = 0; y < grid.y; ++y)
    for (unsigned x = 0; x < grid.x; ++x) {
      std::memset(hone_attention::smem, 0xff, shared_bytes);  // what the kernel never wrote reads as NaN
      Block blk;
      blk.block_idx = dim3(x, y);
      blk.grid_dim = grid;
      blk.block_dim = threads;
      blk.fibers.resize(threads.x);
      for (unsigned t = 0; t < threads.x; ++t) blk.fibers[t].thread_idx = dim3(t);
      blk.warps.resize(threads.x / 32);
      for (auto& w : blk.warps) w.barrier.count = 32;
      blk.groups.resize(threads.x / 128);
      for (auto& g : blk.groups) g.barrier.count = 128;
      blk.barrier.count = static_cast<int>(threads.x);
      blk.body = [&] { kernel(args...); };
      run_block(blk);
    }
}
