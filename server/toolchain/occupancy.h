// toolchain/occupancy.h: theoretical occupancy of a kernel on an architecture from its registers
// per thread, static shared memory and block size, with a per-architecture limits table
// (sm_70 .. sm_121), computed the way CUDA's occupancy calculator does (registers allocated per
// warp in 256-register units within each of the 4 SM sub-partitions, shared memory in 128/256-byte
// units plus the per-block reservation, the maximum shared-memory carveout). Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/build_report.h"

namespace hone::toolchain {

struct ArchLimits {
  int max_warps_per_sm;
  int max_blocks_per_sm;
  int max_threads_per_block;
  int registers_per_sm;
  int max_registers_per_thread;
  int register_unit;  // registers, per warp
  int shared_per_sm;  // bytes, at the largest carveout
  int shared_unit;    // bytes
  int shared_reserved_per_block;
};

// Limits of "sm_90" (or sm_90a); an unknown minor falls back to the closest lower one of the same
// major; nullopt for an unknown major or a malformed name.
std::optional<ArchLimits> arch_limits(const std::string& arch);

protocol::Occupancy theoretical_occupancy(const ArchLimits& limits, std::int64_t registers, std::int64_t static_shared_bytes,
                                          int block_size, protocol::BlockSizeSource source);

}  // namespace hone::toolchain
