// profile/gpu_specs.h: the table of GPU peak rates (datasheet numbers, sources in gpu_specs.cpp)
// and the facts a device reports about itself. Used by the eval client (physical floor: bytes over
// peak DRAM bandwidth), the roofline, the suggestion rules, `hone specs` and prompts; pure data,
// callable from any thread.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "protocol/profile_report.h"

namespace hone::profile {

using protocol::GpuSpec;
using protocol::kAllPrecisions;
using protocol::parse_precision;
using protocol::Precision;
using protocol::precision_name;

// Finds the row for a device name as CUDA/PyTorch/nvidia-smi report it ("NVIDIA H200",
// "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA GeForce RTX 4090") or a user's
// --gpu value ("h100-pcie", "H200", "4090"). Case-insensitive; the most specific row wins;
// nullopt for unknown GPUs.
std::optional<GpuSpec> find_gpu_spec(std::string_view device_name);

// Every row, in table order (for `hone specs` without --gpu).
std::span<const GpuSpec> all_gpu_specs();

using protocol::DeviceFacts;

// The peak DRAM bandwidth to use for a device: the table's when the device is known, else the
// device's own theoretical rate; nullopt when neither exists. (The eval client's physical floor.)
std::optional<double> peak_dram_bytes_per_s(const DeviceFacts& facts);

}  // namespace hone::profile
