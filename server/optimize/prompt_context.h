// optimize/prompt_context.h: the variables of the prompt templates (documented in
// prompts/README.md), built from the task, the kernel being refined, its verdict (schema shape),
// profile facts, GPU specs and the history of attempts. Pure functions, any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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
};

struct PromptInputs {
  std::string task_name;
  std::string task_path;
  std::string task_source;
  std::string device;          // "cuda" | "cpu"
  nlohmann::json signature;    // verdict schema $defs/signature (inputs, params, outputs, raw, torch)
  std::string kernel_path;
  std::string kernel_source;
  nlohmann::json verdict;      // the kernel's verdict, null when not checked
  nlohmann::json profile;      // hone profile's result, null when none
  nlohmann::json gpu;          // gpu_facts() of the device, null on the CPU
  std::vector<AttemptSummary> history;
  int round = 1;
  std::string hint;            // the user's free-text direction for the model; empty: none
};

// The template variables.
nlohmann::json prompt_context(const PromptInputs& inputs);

// Numbers as prompts show them: three significant digits ("41.2", "1.83", "1234").
std::string format_number(double value);

// The GPU facts a prompt shows, from a spec table row or device facts (JSON with any of name,
// arch, sm_count, peak_dram_bytes_per_s, l2_bytes, shared_bytes_per_sm, fp32, fp16_tensor,
// bf16_tensor); the keys the templates read.
nlohmann::json gpu_prompt_facts(const nlohmann::json& spec);

// A shortened one-line form of a reason (for histories and progress lines).
std::string short_reason(const std::string& reason, std::size_t max_chars = 160);

}  // namespace hone
