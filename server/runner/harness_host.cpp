// runner/harness_host.cpp: libhone_harness's CPU functions, and (in a build without CUDA) the
// CUDA functions as stubs that report cudaErrorNotSupported.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "harness.h"
#include "mix_choice.h"

extern "C" int hone_harness_version(void) { return 5; }  // 5: hone_harness_host_evict

extern "C" int hone_harness_flush_prologue(void* stream, void* args) {
  const auto* a = static_cast<const hone_harness_flush_args*>(args);
  return a ? hone_harness_flush(stream, a->buffer, a->bytes, a->sink) : hone_harness_flush(stream, nullptr, 0, nullptr);
}

extern "C" unsigned hone_harness_mix_choice(unsigned seed, unsigned long long element) {
  return hone::harness::mix_hash(seed, element);
}

namespace {

template <typename T>
void host_mix(T* dst, const void* const* sets, int n_sets, size_t count, unsigned seed) {
  const auto k = static_cast<std::uint32_t>(n_sets);
  for (size_t e = 0; e < count; ++e) dst[e] = static_cast<const T*>(sets[hone::harness::mix_hash(seed, e) % k])[e];
}

}  // namespace

extern "C" int hone_harness_host_mix(void* dst, const void* const* sets, int n_sets, size_t elem_bytes, size_t count,
                                     unsigned seed) {
  if (!dst || !sets || n_sets < 1 || n_sets > hone::harness::kMaxMixSets) return EINVAL;
  for (int k = 0; k < n_sets; ++k)
    if (!sets[k]) return EINVAL;
  switch (elem_bytes) {
    case 1: host_mix(static_cast<std::uint8_t*>(dst), sets, n_sets, count, seed); return 0;
    case 2: host_mix(static_cast<std::uint16_t*>(dst), sets, n_sets, count, seed); return 0;
    case 4: host_mix(static_cast<std::uint32_t*>(dst), sets, n_sets, count, seed); return 0;
    case 8: host_mix(static_cast<std::uint64_t*>(dst), sets, n_sets, count, seed); return 0;
    default: return EINVAL;
  }
}

extern "C" void hone_harness_host_flush(const void* buffer, size_t bytes) {
  constexpr size_t kLine = 64;
  const auto* p = static_cast<const unsigned char*>(buffer);
  std::uint64_t sum = 0;
  for (size_t at = 0; at < bytes; at += kLine) sum += p[at];
  if (bytes > 0) sum += p[bytes - 1];
  static volatile std::uint64_t sink;
  sink = sink + sum;
}

namespace {

// One cache line written back and evicted, its size, and the fence after a run of them; where the
// CPU has no user-mode eviction, kEvicts is false and hone_harness_host_evict does nothing.
#if defined(__x86_64__)
constexpr bool kEvicts = true;
std::uintptr_t line_bytes() { return 64; }
void evict_line(std::uintptr_t line) { __builtin_ia32_clflush(reinterpret_cast<const void*>(line)); }
void evict_fence() { __builtin_ia32_mfence(); }
#elif defined(__aarch64__)
constexpr bool kEvicts = true;
std::uintptr_t line_bytes() {  // CTR_EL0.DminLine (bits 19:16): log2 of the smallest data cache line in words
  std::uint64_t ctr = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return std::uintptr_t{4} << ((ctr >> 16) & 0xF);
}
void evict_line(std::uintptr_t line) { asm volatile("dc civac, %0" : : "r"(line) : "memory"); }
void evict_fence() { asm volatile("dsb ish" : : : "memory"); }
#else
constexpr bool kEvicts = false;
std::uintptr_t line_bytes() { return 64; }
void evict_line(std::uintptr_t) {}
void evict_fence() {}
#endif

}  // namespace

extern "C" int hone_harness_host_evict(const void* p, size_t bytes) {
  if (!kEvicts) return EOPNOTSUPP;
  const std::uintptr_t line = line_bytes();
  const auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p) & ~(line - 1); at < end; at += line) evict_line(at);
  evict_fence();
  return 0;
}

#if !defined(HONE_HARNESS_CUDA)

namespace {

constexpr int kNotSupported = 801;  // cudaErrorNotSupported
thread_local int t_last_error = 0;

int not_built() {
  t_last_error = kNotSupported;
  return kNotSupported;
}

}  // namespace

extern "C" int hone_harness_has_cuda(void) { return 0; }
extern "C" int hone_harness_flush(void*, const void*, size_t, void*) { return not_built(); }
extern "C" int hone_harness_flush_l2(void*, const void*, size_t, void*) { return not_built(); }
extern "C" int hone_harness_hold(void*, const void*, unsigned long long, void*) { return not_built(); }
extern "C" int hone_harness_spin(void*, unsigned long long) { return not_built(); }
extern "C" int hone_harness_marker(void*, void*) { return not_built(); }
extern "C" int hone_harness_mix(void*, void*, const void* const*, int, size_t, size_t, unsigned) { return not_built(); }
extern "C" int hone_harness_register(void*, size_t, void** device_ptr) {
  if (device_ptr) *device_ptr = nullptr;
  return not_built();
}
extern "C" int hone_harness_unregister(void*) { return not_built(); }

extern "C" int hone_harness_last_error(char* text, int len) {
  if (text && len > 0)
    std::snprintf(text, static_cast<size_t>(len), "%s",
                  t_last_error ? "cudaErrorNotSupported: libhone_harness was built without CUDA" : "");
  return t_last_error;
}

#endif
