// profile/gpu_specs.h: the table of GPU peak rates (datasheet numbers, sources in gpu_specs.cpp)
// and the facts a device reports about itself. Used by the eval client (physical floor: bytes over
// peak DRAM bandwidth), the roofline, the suggestion rules, `hone specs` and prompts; pure data,
// callable from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace hone::profile {

// Arithmetic precisions with a peak rate. "Tensor" precisions run on tensor cores (dense rates;
// structured sparsity doubles them and is never used as a ceiling).
enum class Precision { fp64, fp32, fp16, bf16, fp64_tensor, tf32_tensor, fp16_tensor, bf16_tensor, fp8_tensor, int8_tensor };

std::string_view precision_name(Precision p);  // "fp32", "bf16_tensor", ...
std::optional<Precision> parse_precision(std::string_view name);
inline constexpr Precision kAllPrecisions[] = {
    Precision::fp64,        Precision::fp32,        Precision::fp16,        Precision::bf16,
    Precision::fp64_tensor, Precision::tf32_tensor, Precision::fp16_tensor, Precision::bf16_tensor,
    Precision::fp8_tensor,  Precision::int8_tensor};

// One row of the table. Rates are per second, bytes are bytes; 0 means "not published".
struct GpuSpec {
  std::string_view name;    // "NVIDIA H200 SXM 141GB"
  std::string_view key;     // short id for --gpu: "h200", "h100-sxm", ...
  std::string_view arch;    // "sm_90"
  std::string_view chip;    // CUPTI chip name: "GH100"
  int sm_count = 0;
  double boost_clock_hz = 0;  // the clock the datasheet rates assume
  double peak_dram_bytes_per_s = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint32_t shared_bytes_per_sm = 0;
  std::uint32_t shared_bytes_per_block = 0;  // opt-in maximum per block
  std::uint32_t registers_per_sm = 65536;
  std::uint32_t max_warps_per_sm = 64;
  std::uint32_t max_blocks_per_sm = 32;
  // Peak FLOP/s (integer ops/s for int8) per precision, dense.
  double fp64 = 0, fp32 = 0, fp16 = 0, bf16 = 0;
  double fp64_tensor = 0, tf32_tensor = 0, fp16_tensor = 0, bf16_tensor = 0, fp8_tensor = 0, int8_tensor = 0;
  std::string_view source;  // where the numbers come from

  // The peak for a precision; nullopt when the table has none (0).
  std::optional<double> peak_flops(Precision p) const;
};

// Finds the row for a device name as CUDA/PyTorch/nvidia-smi report it ("NVIDIA H200",
// "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA GeForce RTX 4090") or a user's
// --gpu value ("h100-pcie", "H200", "4090"). Case-insensitive; the most specific row wins;
// nullopt for unknown GPUs.
std::optional<GpuSpec> find_gpu_spec(std::string_view device_name);

// Every row, in table order (for `hone specs` without --gpu).
std::span<const GpuSpec> all_gpu_specs();

// What a device reports about itself (the eval worker's `hello` devices[] entry): exact for the
// part in the machine, where the table is the nominal product.
struct DeviceFacts {
  int index = 0;
  std::string name;
  std::string arch;  // "sm_90"
  int sm_count = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t memory_bytes = 0;
  std::uint32_t max_threads_per_sm = 0;
  std::uint32_t shared_bytes_per_sm = 0;
  std::uint32_t registers_per_sm = 0;
  std::uint64_t memory_clock_khz = 0;
  std::uint32_t memory_bus_bits = 0;
  std::uint64_t sm_clock_khz = 0;

  // 2 x memory clock x bus width / 8 (double data rate): the theoretical DRAM rate from the
  // device's own numbers; nullopt when the device did not report them.
  std::optional<double> theoretical_dram_bytes_per_s() const;
};

// Reads a `hello` device object; throws std::runtime_error naming the missing field.
DeviceFacts device_facts_from_json(const nlohmann::json& j);
nlohmann::json to_json(const DeviceFacts& facts);
nlohmann::json to_json(const GpuSpec& spec);

// The peak DRAM bandwidth to use for a device: the table's when the device is known, else the
// device's own theoretical rate; nullopt when neither exists. (The eval client's physical floor.)
std::optional<double> peak_dram_bytes_per_s(const DeviceFacts& facts);

}  // namespace hone::profile
