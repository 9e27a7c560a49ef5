// tests/profile/ceilings_test.cpp: measured ceilings: JSON, the on-disk cache, precedence.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "profile/ceilings.h"

namespace hone::profile {
namespace {

class CeilingsCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("hone-ceilings-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    setenv("HONE_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("HONE_CACHE_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

MeasuredCeilings h200_measured() {
  return nlohmann::json({{"device_name", "NVIDIA H200"},
                                      {"torch_version", "2.11.0+cu130"},
                                      {"measured_at", "2026-11-29T12:00:00Z"},
                                      {"dram_copy_bytes_per_s", 4.3e12},
                                      {"matmul_flops_per_s", {{"bf16_tensor", 7.8e14}, {"fp32", 5.1e13}}},
                                      {"details", {{"copy_bytes", 1 << 30}}}}).get<MeasuredCeilings>();
}

TEST_F(CeilingsCache, RoundTripsThroughTheCache) {
  EXPECT_FALSE(load_cached_ceilings("NVIDIA H200"));
  store_cached_ceilings(h200_measured());
  EXPECT_EQ(ceilings_cache_path("NVIDIA H200").parent_path(), dir_ / "ceilings");
  auto back = load_cached_ceilings("NVIDIA H200");
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(*back->dram_copy_bytes_per_s, 4.3e12);
  EXPECT_DOUBLE_EQ(back->matmul_flops_per_s.at(Precision::bf16_tensor), 7.8e14);
  EXPECT_EQ(back->details["copy_bytes"], 1 << 30);
  EXPECT_FALSE(load_cached_ceilings("NVIDIA H100 PCIe"));
}

TEST_F(CeilingsCache, DamagedEntryIsIgnored) {
  std::filesystem::create_directories(ceilings_cache_path("X").parent_path());
  std::FILE* f = std::fopen(ceilings_cache_path("X").c_str(), "w");
  std::fputs("{not json", f);
  std::fclose(f);
  EXPECT_FALSE(load_cached_ceilings("X"));
}

TEST(Ceilings, MeasuredBeatsSpecBeatsDevice) {
  auto spec = find_gpu_spec("NVIDIA H200");
  Ceilings c = effective_ceilings(spec, h200_measured(), 4.9e12);
  EXPECT_DOUBLE_EQ(c.dram_bytes_per_s->value, 4.3e12);
  EXPECT_EQ(c.dram_bytes_per_s->source, "measured");
  EXPECT_EQ(c.flops_for(Precision::bf16_tensor)->source, "measured");
  EXPECT_EQ(c.flops_for(Precision::fp16_tensor)->source, "spec");
  EXPECT_DOUBLE_EQ(c.flops_for(Precision::fp16_tensor)->value, 989.4e12);

  Ceilings s = effective_ceilings(spec, std::nullopt, 4.9e12);
  EXPECT_EQ(s.dram_bytes_per_s->source, "spec");
  Ceilings d = effective_ceilings(std::nullopt, std::nullopt, 4.9e12);
  EXPECT_EQ(d.dram_bytes_per_s->source, "device");
  EXPECT_TRUE(d.flops_per_s.empty());
  EXPECT_FALSE(effective_ceilings(std::nullopt, std::nullopt, std::nullopt).dram_bytes_per_s);
}

TEST(Ceilings, RejectsUnknownPrecision) {
  EXPECT_THROW(nlohmann::json({{"device_name", "x"}, {"matmul_flops_per_s", {{"fp4", 1.0}}}}).get<MeasuredCeilings>(), std::runtime_error);
  EXPECT_THROW(nlohmann::json::object().get<MeasuredCeilings>(), std::runtime_error);
}

}  // namespace
}  // namespace hone::profile
