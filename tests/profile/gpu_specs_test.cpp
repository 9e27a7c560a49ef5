// tests/profile/gpu_specs_test.cpp: the spec table: name matching for the names devices report,
// the values with their sources, device-reported facts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profile/gpu_specs.h"

namespace hone::profile {
namespace {

std::string key_of(std::string_view name) {
  auto s = find_gpu_spec(name);
  return s ? std::string(s->key) : "none";
}

TEST(GpuSpecs, MatchesNamesAsDevicesReportThem) {
  EXPECT_EQ(key_of("NVIDIA H200"), "h200");
  EXPECT_EQ(key_of("NVIDIA H200 NVL"), "h200-nvl");
  EXPECT_EQ(key_of("NVIDIA H100 80GB HBM3"), "h100-sxm");
  EXPECT_EQ(key_of("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(key_of("NVIDIA H100 NVL"), "h100-nvl");
  EXPECT_EQ(key_of("NVIDIA A100-SXM4-80GB"), "a100-sxm-80gb");
  EXPECT_EQ(key_of("NVIDIA A100-SXM4-40GB"), "a100-40gb");
  EXPECT_EQ(key_of("NVIDIA A100-PCIE-40GB"), "a100-40gb");
  EXPECT_EQ(key_of("NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");
  EXPECT_EQ(key_of("NVIDIA L40S"), "l40s");
  EXPECT_EQ(key_of("NVIDIA GeForce RTX 4090"), "rtx-4090");
  EXPECT_EQ(key_of("NVIDIA B200"), "b200");
}

TEST(GpuSpecs, MatchesUserSpellings) {
  EXPECT_EQ(key_of("h100-sxm"), "h100-sxm");
  EXPECT_EQ(key_of("H100 PCIe"), "h100-pcie");
  EXPECT_EQ(key_of("h200"), "h200");
  EXPECT_EQ(key_of("rtx4090"), "rtx-4090");
  EXPECT_EQ(key_of("4090"), "rtx-4090");
  EXPECT_EQ(key_of("a100"), "a100-sxm-80gb");
}

TEST(GpuSpecs, UnknownAndLookalikeNamesDoNotMatch) {
  EXPECT_EQ(key_of("NVIDIA L40"), "none");
  EXPECT_EQ(key_of("NVIDIA GeForce RTX 4090 D"), "none");
  EXPECT_EQ(key_of("NVIDIA GH200 480GB"), "none");
  EXPECT_EQ(key_of("Tesla V100-SXM2-16GB"), "none");
  EXPECT_EQ(key_of(""), "none");
}

TEST(GpuSpecs, DatasheetValues) {
  auto h200 = find_gpu_spec("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(h200->peak_dram_bytes_per_s, 4.8e12);
  EXPECT_EQ(h200->sm_count, 132);
  EXPECT_EQ(h200->chip, "GH100");
  EXPECT_DOUBLE_EQ(*h200->peak_flops(Precision::bf16_tensor), 989.4e12);  // dense, not the sparse 1979
  EXPECT_DOUBLE_EQ(*h200->peak_flops(Precision::fp32), 66.9e12);
  EXPECT_EQ(h200->shared_bytes_per_sm, 228u * 1024);
  EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA H100 80GB HBM3")->peak_dram_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA A100-SXM4-40GB")->peak_dram_bytes_per_s, 1555e9);
  EXPECT_DOUBLE_EQ(find_gpu_spec("NVIDIA GeForce RTX 4090")->peak_dram_bytes_per_s, 1008e9);
  EXPECT_FALSE(find_gpu_spec("NVIDIA A100-SXM4-80GB")->peak_flops(Precision::fp8_tensor));  // Ampere has no FP8
  EXPECT_EQ(find_gpu_spec("NVIDIA L40S")->max_warps_per_sm, 48u);
}

TEST(GpuSpecs, EveryRowIsCompleteAndSourced) {
  ASSERT_GE(all_gpu_specs().size(), 7u);
  for (const GpuSpec& s : all_gpu_specs()) {
    SCOPED_TRACE(std::string(s.name));
    EXPECT_GT(s.sm_count, 0);
    EXPECT_GT(s.peak_dram_bytes_per_s, 1e11);
    EXPECT_TRUE(s.peak_flops(Precision::fp32));
    EXPECT_TRUE(s.peak_flops(Precision::bf16_tensor));
    EXPECT_GT(*s.peak_flops(Precision::bf16_tensor), *s.peak_flops(Precision::fp32));
    EXPECT_FALSE(s.source.empty());
    EXPECT_GT(s.shared_bytes_per_sm, s.shared_bytes_per_block - 1);
    EXPECT_EQ(find_gpu_spec(s.key)->key, s.key) << "the --gpu key selects its own row";
    nlohmann::json j = s;
    EXPECT_EQ(j["peak_flops_per_s"]["fp32"].get<double>(), s.fp32);
  }
}

TEST(GpuSpecs, PrecisionNamesRoundTrip) {
  for (Precision p : kAllPrecisions) EXPECT_EQ(parse_precision(precision_name(p)), p);
  EXPECT_FALSE(parse_precision("fp4"));
}

TEST(DeviceFacts, ParsesHelloAndComputesTheoreticalBandwidth) {
  nlohmann::json hello = {{"index", 0},           {"name", "NVIDIA H200"},     {"arch", "sm_90"},
                          {"sm_count", 132},      {"l2_bytes", 62914560},      {"memory_bytes", 150754820096},
                          {"max_threads_per_sm", 2048}, {"shared_bytes_per_sm", 233472}, {"registers_per_sm", 65536},
                          {"memory_clock_khz", 3201000}, {"memory_bus_bits", 6144}, {"sm_clock_khz", 1980000}};
  DeviceFacts f = hello.get<DeviceFacts>();
  EXPECT_EQ(f.name, "NVIDIA H200");
  EXPECT_EQ(f.sm_count, 132);
  EXPECT_EQ(f.l2_bytes, 62914560u);
  // 2 transfers per clock x 3.201 GHz x 768 bytes = 4.917 TB/s
  EXPECT_NEAR(*f.theoretical_dram_bytes_per_s(), 2 * 3.201e9 * 768, 1);
  EXPECT_DOUBLE_EQ(*peak_dram_bytes_per_s(f), 4.8e12);  // the table wins for a known GPU
  f.name = "Some Future GPU";
  EXPECT_NEAR(*peak_dram_bytes_per_s(f), 2 * 3.201e9 * 768, 1);
  f.memory_clock_khz = 0;
  EXPECT_FALSE(peak_dram_bytes_per_s(f));
  EXPECT_EQ(nlohmann::json(hello.get<DeviceFacts>())["sm_count"], 132);
}

TEST(DeviceFacts, RejectsMalformedInputWithTheReason) {
  try {
    nlohmann::json{{"sm_count", 3}}.get<DeviceFacts>();
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("name"), std::string::npos);
  }
  EXPECT_THROW(nlohmann::json::array().get<DeviceFacts>(), std::runtime_error);
}

}  // namespace
}  // namespace hone::profile
