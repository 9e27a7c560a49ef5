// tests/profile/roofline_test.cpp: roofline arithmetic and bound classification, by hand.
#include <gtest/gtest.h>

#include "profile/roofline.h"

namespace hone::profile {
namespace {

Ceilings h200_like() {
  Ceilings c;
  c.dram_bytes_per_s = Ceiling{4e12, "measured"};
  c.flops_per_s[Precision::fp32] = Ceiling{64e12, "spec"};
  c.flops_per_s[Precision::bf16_tensor] = Ceiling{800e12, "measured"};
  return c;
}

TEST(Roofline, MemoryBoundCopy) {
  // 805 MB in 200 us = 4.0265 TB/s; no FLOPs.
  auto p = roofline_point({"candidate", 200e-6, 805e6, {}}, h200_like());
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->achieved_bytes_per_s, 4.025e12, 1e9);
  EXPECT_NEAR(p->memory_pct, 100.625, 1e-9);
  EXPECT_EQ(p->arithmetic_intensity, 0);
  EXPECT_FALSE(p->precision);
  EXPECT_EQ(p->bound, Bound::memory);
  EXPECT_DOUBLE_EQ(p->pct_of_roofline, p->memory_pct);
}

TEST(Roofline, ComputeBoundFma) {
  // 2^33 FLOP in 140 us = 61.36 TFLOP/s against 64: 95.9%; 8 MB of DRAM.
  double flops = 8589934592.0;
  auto p = roofline_point({"fma", 140e-6, 8e6, {{Precision::fp32, flops}}}, h200_like());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->precision, Precision::fp32);
  EXPECT_NEAR(p->achieved_flops_per_s, flops / 140e-6, 1);
  EXPECT_NEAR(p->compute_pct, 100 * flops / 140e-6 / 64e12, 1e-9);
  EXPECT_NEAR(p->arithmetic_intensity, flops / 8e6, 1e-6);
  EXPECT_DOUBLE_EQ(p->ridge_intensity, 16.0);
  EXPECT_EQ(p->bound, Bound::compute);
  EXPECT_NEAR(p->pct_of_roofline, p->compute_pct, 1e-9);  // right of the ridge the roof is the peak
}

TEST(Roofline, LatencyBoundWhenNeitherUnitIsBusy) {
  // AI 1 FLOP/B (left of the ridge 16): attainable 4 TFLOP/s; achieved 1 TFLOP/s = 25% of roofline.
  auto p = roofline_point({"k", 1e-3, 1e9, {{Precision::fp32, 1e9}}}, h200_like());
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->memory_pct, 25, 1e-9);
  EXPECT_NEAR(p->compute_pct, 100 * 1e12 / 64e12, 1e-9);
  EXPECT_NEAR(p->pct_of_roofline, 25, 1e-9);
  EXPECT_EQ(p->bound, Bound::latency);
  EXPECT_EQ(bound_name(p->bound), "latency");
}

TEST(Roofline, DominantPrecisionIsTheOneThatTakesLongestAtItsPeak) {
  // 1e12 FP32 FLOP take 15.6 ms at 64 T; 1e13 bf16 tensor FLOP take 12.5 ms at 800 T.
  auto p = roofline_point({"mixed", 0.02, 1e9, {{Precision::fp32, 1e12}, {Precision::bf16_tensor, 1e13}}}, h200_like());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->precision, Precision::fp32);
  EXPECT_EQ(p->flops_source, "spec");
}

TEST(Roofline, NoPointWithoutABandwidthCeilingOrTime) {
  EXPECT_FALSE(roofline_point({"k", 1e-3, 1e9, {}}, Ceilings{}));
  EXPECT_FALSE(roofline_point({"k", 0, 1e9, {}}, h200_like()));
}

TEST(Roofline, JsonCarriesEveryNumber) {
  auto p = roofline_point({"k", 1e-3, 1e9, {{Precision::bf16_tensor, 4e11}}}, h200_like());
  nlohmann::json j = *p;
  EXPECT_EQ(j["precision"], "bf16_tensor");
  EXPECT_EQ(j["bound"], "latency");
  EXPECT_DOUBLE_EQ(j["arithmetic_intensity"].get<double>(), 400.0);
  EXPECT_EQ(j["dram_source"], "measured");
}

}  // namespace
}  // namespace hone::profile
