// lsp/job_work.h: what each hone/ job asks of the engine: request options (validated before the
// job is queued) turned into engine requests, and the engine's typed answers. Runs on the
// scheduler's threads; knows the engine's calls, not LSP.
#pragma once

#include <nlohmann/json.hpp>
#include <functional>
#include <optional>
#include <string>

#include "engine/engine.h"
#include "lsp/documents.h"
#include "lsp/job_results.h"
#include "lsp/protocol.h"

namespace hone::lsp {

struct JobInput {
  const Document& doc;  // the buffer as it was when the job was requested
  const JobParams& params;
  const nlohmann::json& settings;  // the client's hone settings (llm.baseUrl, llm.model, ...)
  Engine& engine;
  // Structured progress beyond the engine's stages (the optimizer's rounds): a short message and
  // lsp.schema.json JobProgress fields.
  std::function<void(const std::string& message, const nlohmann::json& detail)> report;
};

// Reader thread: nullopt when `options` suit a job of `kind`, else what is wrong with them.
std::optional<std::string> validate_job_options(const std::string& kind, const nlohmann::json& options);

// Job threads. Each throws EngineError for problems that are not a kernel's result.
protocol::Verdict run_check(const JobInput& input, const CallContext& ctx);
ProfileResult run_profile(const JobInput& input, const CallContext& ctx);
// `previous` (the last result for this kernel) keeps earlier proposals browsable.
OptimizeResult run_optimize(const JobInput& input, const CallContext& ctx, const std::optional<OptimizeResult>& previous);

}  // namespace hone::lsp
