// optimize/prompt_context.h: the variables of the prompt templates (documented in
// prompts/README.md), built from the task, the kernel being refined, its verdict and profile,
// the GPU's facts and the history of attempts. Pure functions, any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/device.h"
#include "protocol/verdict.h"

namespace hone {

// One earlier attempt, as the prompt's history lists it.
struct AttemptSummary {
  std::int64_t id = 0;
  int round = 0;
  std::optional<std::int64_t> parent;
  std::string status;
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::string note;  // the reason, shortened
  std::optional<protocol::SpeedupRange> speedup_eager_range;  // a noisy timing's range, in place of speedup_eager
};

// How a candidate that never reached the verifier ended (no code, an LLM error).
struct PromptOutcome {
  std::string status;
  std::string reason;
};

struct PromptInputs {
  std::string task_name;
  std::string task_path;
  std::string task_source;
  protocol::Device device = protocol::Device::cpu();
  std::optional<protocol::Signature> signature;
  std::string kernel_path;
  std::string kernel_source;
  std::optional<protocol::Verdict> verdict;  // the kernel's verdict (with its profile, when profiled); nullopt: not checked
  std::optional<PromptOutcome> outcome;      // without a verdict: how the kernel's candidate ended
  std::optional<protocol::DeviceFacts> gpu;  // the device's facts; nullopt on the CPU
  std::optional<protocol::GpuSpec> gpu_spec; // its spec table row
  std::vector<AttemptSummary> history;
  int round = 1;
  std::string hint;            // the user's free-text direction for the model; empty: none
};

// The template variables.
nlohmann::json prompt_context(const PromptInputs& inputs);

// The GPU facts a prompt shows (the keys the templates read): what the device reports (name,
// arch, SMs, L2, shared memory), with the spec table's peak rates when it has the GPU, else the
// device's own theoretical DRAM rate.
nlohmann::json gpu_prompt_facts(const protocol::DeviceFacts& device, const std::optional<protocol::GpuSpec>& spec);

}  // namespace hone
