// runner/mix_choice.h: which input set element e of a timed call's input comes from
// (hone_harness_mix): a 32-bit integer hash of the call's seed and the element's index, the same
// on the host and the device, so the judge rebuilds any call's input exactly. Header-only: used by
// harness_host.cpp and harness_cuda.cu.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define HONE_MIX_INLINE __host__ __device__ __forceinline__
#else
#define HONE_MIX_INLINE inline
#endif

namespace hone::harness {

// Avalanching: neighbouring elements and neighbouring seeds choose independently.
HONE_MIX_INLINE std::uint32_t mix_hash(std::uint32_t seed, std::uint64_t element) {
  std::uint32_t x = static_cast<std::uint32_t>(element) ^ (static_cast<std::uint32_t>(element >> 32) * 0x9E3779B9u) ^
                    (seed * 0x85EBCA6Bu);
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

constexpr int kMaxMixSets = 8;

}  // namespace hone::harness
