// toolchain/occupancy.cpp: the limits table and the occupancy calculation.
#include "toolchain/occupancy.h"

#include <algorithm>
#include <array>
#include <climits>
#include <regex>
#include <utility>

namespace hone::toolchain {

namespace {

constexpr int kKB = 1024;
constexpr int kSubPartitions = 4;
constexpr int kWarpSize = 32;

// compute capability (major*10+minor) -> limits. Shared memory per SM is the largest carveout.
constexpr std::array<std::pair<int, ArchLimits>, 14> kLimits{{
    {70, {64, 32, 1024, 65536, 255, 256, 96 * kKB, 256, 0}},
    {72, {64, 32, 1024, 65536, 255, 256, 96 * kKB, 256, 0}},
    {75, {32, 16, 1024, 65536, 255, 256, 64 * kKB, 256, 0}},
    {80, {64, 32, 1024, 65536, 255, 256, 164 * kKB, 128, 1 * kKB}},
    {86, {48, 16, 1024, 65536, 255, 256, 100 * kKB, 128, 1 * kKB}},
    {87, {48, 16, 1024, 65536, 255, 256, 164 * kKB, 128, 1 * kKB}},
    {89, {48, 24, 1024, 65536, 255, 256, 100 * kKB, 128, 1 * kKB}},
    {90, {64, 32, 1024, 65536, 255, 256, 228 * kKB, 128, 1 * kKB}},
    {100, {64, 32, 1024, 65536, 255, 256, 228 * kKB, 128, 1 * kKB}},
    {101, {48, 24, 1024, 65536, 255, 256, 228 * kKB, 128, 1 * kKB}},
    {103, {64, 32, 1024, 65536, 255, 256, 228 * kKB, 128, 1 * kKB}},
    {110, {48, 24, 1024, 65536, 255, 256, 228 * kKB, 128, 1 * kKB}},
    {120, {48, 24, 1024, 65536, 255, 256, 100 * kKB, 128, 1 * kKB}},
    {121, {48, 24, 1024, 65536, 255, 256, 100 * kKB, 128, 1 * kKB}},
}};

int round_up(int x, int unit) { return unit * ((x + unit - 1) / unit); }

}  // namespace

std::optional<ArchLimits> arch_limits(const std::string& arch) {
  static const std::regex re(R"(sm_(\d+)[af]?)");
  std::smatch m;
  if (!std::regex_match(arch, m, re)) return std::nullopt;
  const int cc = std::stoi(m[1].str());
  const int major = cc / 10;
  std::optional<ArchLimits> best;
  for (const auto& [key, limits] : kLimits)
    if (key / 10 == major && key <= cc) best = limits;
  return best;
}

protocol::Occupancy theoretical_occupancy(const ArchLimits& l, std::int64_t registers, std::int64_t static_shared_bytes,
                                          int block_size, protocol::BlockSizeSource source) {
  protocol::Occupancy o;
  o.block_size = block_size;
  o.block_size_source = source;
  o.max_warps_per_sm = l.max_warps_per_sm;
  if (block_size <= 0 || block_size > l.max_threads_per_block) {
    o.limited_by = protocol::OccupancyLimit::Warps;
    return o;
  }
  const int warps_per_block = (block_size + kWarpSize - 1) / kWarpSize;

  const int by_warps = l.max_warps_per_sm / warps_per_block;
  const int by_blocks = l.max_blocks_per_sm;

  int by_registers = INT_MAX;
  if (registers > l.max_registers_per_thread) {
    by_registers = 0;
  } else if (registers > 0) {
    const int per_warp = round_up(static_cast<int>(registers) * kWarpSize, l.register_unit);
    const int warps_per_partition = (l.registers_per_sm / kSubPartitions) / per_warp;
    by_registers = warps_per_partition * kSubPartitions / warps_per_block;
    if (per_warp * round_up(warps_per_block, kSubPartitions) > l.registers_per_sm) by_registers = 0;
  }

  const int per_block_shared =
      round_up(static_cast<int>(static_shared_bytes) + l.shared_reserved_per_block, l.shared_unit);
  const int by_shared = per_block_shared > 0 ? l.shared_per_sm / per_block_shared : INT_MAX;

  // On a tie the hardware limit (warps, then blocks) is named: lowering registers would not help.
  const std::array<std::pair<int, protocol::OccupancyLimit>, 4> limits{{
      {by_warps, protocol::OccupancyLimit::Warps},
      {by_blocks, protocol::OccupancyLimit::Blocks},
      {by_registers, protocol::OccupancyLimit::Registers},
      {by_shared, protocol::OccupancyLimit::SharedMemory},
  }};
  auto min = std::min_element(limits.begin(), limits.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  o.active_blocks_per_sm = min->first;
  o.limited_by = min->second;
  o.active_warps_per_sm = o.active_blocks_per_sm * warps_per_block;
  o.occupancy_pct = 100.0 * o.active_warps_per_sm / l.max_warps_per_sm;
  return o;
}

}  // namespace hone::toolchain

