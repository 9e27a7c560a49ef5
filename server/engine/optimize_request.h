// engine/optimize_request.h: what a front end asks of Engine::optimize (engine/optimize.cpp): a
// new run for a kernel, or the resumption of a stored run, with the loop's options and the
// proposer's (a model endpoint, or the built-in tuner). Plain data; the loop's result and events
// are protocol/optimize_result.h's.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "protocol/optimize_result.h"

namespace hone {

// The model a run asks an OpenAI-compatible endpoint for. The API key is never part of a
// request: the engine reads it from HONE_LLM_API_KEY.
struct ModelSettings {
  std::string url;    // a base URL ("https://api.deepseek.com") or the full ".../chat/completions"
  std::string model;  // "deepseek-reasoner"
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::optional<int> max_concurrency;                  // requests in flight at once; nullopt: 4
  std::optional<std::chrono::seconds> request_timeout;  // one request; nullopt: 900 s
  double price_input_per_mtok = 0;                     // USD per million tokens, for cost accounting
  double price_output_per_mtok = 0;
};

struct OptimizeRequest {
  // A new run: the kernel (path, and the editor's unsaved text when there is one) and its task
  // (nullopt: paired as `hone check` pairs it). Ignored when resuming.
  std::filesystem::path kernel;
  std::optional<std::string> contents;
  std::optional<std::filesystem::path> task;
  std::string device = "auto";  // "auto" | "cpu" | "cuda"

  // Resuming: the run's id; its kernel, task, device and settings come from the store, except
  // this session's budget (below) and, when set, the last round to run to.
  std::optional<std::int64_t> resume_run;
  std::optional<int> resume_rounds;

  protocol::OptimizeOptions options;  // samples, rounds, token budget, speed-of-light threshold
  // This session's wall clock; nullopt: options.budget for a new run, what is left of the run's
  // budget when resuming.
  std::optional<std::chrono::seconds> budget;

  std::optional<ModelSettings> model;                // nullopt: the built-in tuner
  std::string hint;  // free text for the model's prompts (a direction to try); kept with the run
  std::optional<std::filesystem::path> prompts_dir;  // nullopt: share/hone/prompts
  int parents = 2;                                   // a model: best candidates refined each round
  bool tune_flags = true;                            // tuner: also try compiler flag sets
};

}  // namespace hone
