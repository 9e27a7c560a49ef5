// optimize/optimize_target.h: what is being optimized: the kernel as it was at the start, its
// task (reference source and expected signature), the device and the GPU's facts for prompts.
// Filled once by the engine (engine/optimize.cpp) and read by the loop and the proposers.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "optimize/code_extraction.h"
#include "protocol/device.h"
#include "protocol/verdict.h"

namespace hone {

struct OptimizeTarget {
  std::filesystem::path kernel_path;
  std::string base_source;   // the kernel's text when the run began
  std::string language;      // "cuda" | "cpp"
  std::filesystem::path task_path;
  std::string task_name;
  std::string task_source;
  protocol::Device device = protocol::Device::cpu();
  std::optional<protocol::Signature> signature;  // the task's expected forward; nullopt: unknown
  std::optional<protocol::DeviceFacts> gpu;      // what the GPU reports about itself; nullopt on the CPU
  std::optional<protocol::GpuSpec> gpu_spec;     // its spec table row (peak rates), when the table has it
  std::string hint;          // the user's direction for the model's prompts; empty: none

  // Parameter counts for extraction's signature check; nullopt when the signature is unknown.
  std::optional<ExpectedSignature> expected_signature() const;
};

}  // namespace hone
