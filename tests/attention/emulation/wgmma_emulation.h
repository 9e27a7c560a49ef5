// wgmma_emulation.h: the Hopper warpgroup MMAs of tasks/attention/wgmma_ops.cuh on the host, for
// cuda_emulation.h (wgmma_ops.cuh includes this instead of its PTX when HONE_ATTENTION_EMULATION is
// defined). Each operation is a barrier of its warpgroup (128 threads), so a divergent one is a
// deadlock. Shared-memory operands are read through their matrix descriptors with 128-byte
// swizzling (start address, leading and stride byte offsets; K-major: 8-row groups SBO apart, rows
// 128 bytes apart, K along the row; MN-major: 64-element panels LBO apart, 8-row groups of K SBO
// apart), the register layouts are PTX's (accumulator: element 4i+e of a thread in warp w, lane l,
// is row 16w + l/4 + 8(e/2), column 8i + 2(l%4) + e%2; A: register r holds row 16w + l/4 + 8(r%2),
// columns 8(r/2) + 2(l%4) and the next), and the results reach the registers only at wait_all:
// before it they read as NaN, as a kernel reading them early would see garbage. This is the
// kernel's own reading of the PTX layouts, checked here for consistency (fragments, softmax,
// masks, pipeline); bench/probes/wgmma_probe.cu checks the reading itself on a Hopper GPU.
#pragma once

#include <limits>

namespace hone_attention::sm90 {

inline unsigned char* shared_base() { return hone_attention::smem; }

inline void fence() {}
inline void commit() {}
inline void fence_proxy_async() {}
template <int kN>
void fence_operands(float (&)[kN]) {}

inline void wait_all() {
  auto& f = hone_emulation::fiber();
  for (const auto& [reg, value] : f.mma_pending) *reg = value;
  f.mma_pending.clear();
}

struct Descriptor {
  std::size_t start, lbo, sbo;
};

inline Descriptor decode(std::uint64_t d) {
  if ((d >> 62) != 1) hone_emulation::fail("wgmma: only 128-byte swizzling is emulated (descriptor bits 62-63 = 1)");
  if (((d >> 49) & 7) != 0) hone_emulation::fail("wgmma: a nonzero matrix base offset is not emulated");
  return {static_cast<std::size_t>(d & 0x3FFF) << 4, static_cast<std::size_t>((d >> 16) & 0x3FFF) << 4,
          static_cast<std::size_t>((d >> 32) & 0x3FFF) << 4};
}

// The bf16 at a byte offset of shared memory after the 128-byte swizzle (bits 4-6 of the offset
// XOR bits 7-9; the emulated shared memory is 1024-byte aligned, as the kernel aligns its base).
inline float swizzled(std::size_t offset) {
  offset ^= ((offset >> 7) & 7) << 4;
  if (offset % 2 != 0 || offset + 2 > hone_emulation::kMaxSharedBytes)
    hone_emulation::fail("wgmma: an operand element outside shared memory");
  __nv_bfloat16 h;
  std::memcpy(&h, hone_attention::smem + offset, sizeof h);
  return __bfloat162float(h);
}
inline float k_major(const Descriptor& d, int mn, int k) {
  return swizzled(d.start + static_cast<std::size_t>(mn / 8) * d.sbo + static_cast<std::size_t>(mn % 8) * 128 +
                  static_cast<std::size_t>(k) * 2);
}
inline float mn_major(const Descriptor& d, int k, int n) {
  return swizzled(d.start + static_cast<std::size_t>(n / 64) * d.lbo + static_cast<std::size_t>(k / 8) * d.sbo +
                  static_cast<std::size_t>(k % 8) * 128 + static_cast<std::size_t>(n % 64) * 2);
}

struct GroupThread {
  int group, warp, lane;
};
inline GroupThread group_thread() {
  const int t = static_cast<int>(hone_emulation::fiber().thread_idx.x);
  return {t / 128, (t % 128) / 32, t % 32};
}

// Every thread's accumulator elements get `value(row, col)`, held back until wait_all.
template <int kN, class F>
void accumulate(float (&d)[kN / 2], bool add, F value) {
  const GroupThread g = group_thread();
  auto& f = hone_emulation::fiber();
  for (int i = 0; i < kN / 8; ++i)
    for (int e = 0; e < 4; ++e) {
      const int row = 16 * g.warp + g.lane / 4 + 8 * (e / 2), col = 8 * i + 2 * (g.lane % 4) + e % 2;
      // MMAs into the same registers chain in issue order, waited for or not.
      float* reg = &d[4 * i + e];
      const auto pending = f.mma_pending.find(reg);
      const float before = pending != f.mma_pending.end() ? pending->second : *reg;
      f.mma_pending[reg] = (add ? before : 0.f) + value(row, col);
      *reg = std::numeric_limits<float>::quiet_NaN();
    }
}

inline void group_barrier() {
  auto& blk = *hone_emulation::block();
  const GroupThread g = group_thread();
  if (static_cast<std::size_t>(g.group) >= blk.groups.size()) hone_emulation::fail("wgmma: a block of fewer than 128 threads");
  hone_emulation::arrive_and_wait(blk.groups[static_cast<std::size_t>(g.group)].barrier);
}

template <int kN>
void mma_ss(float (&d)[kN / 2], std::uint64_t a, std::uint64_t b, int accumulate_into) {
  group_barrier();
  const Descriptor da = decode(a), db = decode(b);
  accumulate<kN>(d, accumulate_into != 0, [&](int row, int col) {
    float sum = 0.f;
    for (int k = 0; k < 16; ++k) sum += k_major(da, row, k) * k_major(db, col, k);
    return sum;
  });
}

template <int kN>
void mma_rs(float (&d)[kN / 2], const unsigned (&a)[4], std::uint64_t b) {
  auto& shared = hone_emulation::block()->groups[static_cast<std::size_t>(group_thread().group)];
  auto& f = hone_emulation::fiber();
  const unsigned turn = f.group_exchanges++ % 2;
  const GroupThread g = group_thread();
  for (int r = 0; r < 4; ++r) {
    __nv_bfloat162 pair;
    std::memcpy(&pair, &a[r], sizeof pair);
    const int row = 16 * g.warp + g.lane / 4 + 8 * (r % 2), col = 8 * (r / 2) + 2 * (g.lane % 4);
    shared.a[turn][row][col] = __bfloat162float(pair.x);
    shared.a[turn][row][col + 1] = __bfloat162float(pair.y);
  }
  group_barrier();
  const Descriptor db = decode(b);
  accumulate<kN>(d, true, [&](int row, int col) {
    float sum = 0.f;
    for (int k = 0; k < 16; ++k) sum += shared.a[turn][row][k] * mn_major(db, k, col);
    return sum;
  });
}

}  // namespace hone_attention::sm90
