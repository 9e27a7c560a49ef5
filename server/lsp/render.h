// lsp/render.h: hone's results as LSP shapes: toolchain diagnostics and a verdict's problems as
// LSP Diagnostics with 0-based ranges in the document's encoding. The words come from the one
// renderer (protocol/verdict_text.h). Pure functions, any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "lsp/documents.h"
#include "protocol/verdict.h"

namespace hone::lsp {

// One toolchain diagnostic (1-based line/column; 0 = unknown) as an LSP Diagnostic in `text`:
// 0-based positions in the encoding; a known column starts the range there and runs to the end
// of the word; a missing column covers the line; a missing line marks the first line.
nlohmann::json to_lsp_diagnostic(const protocol::Diagnostic& diagnostic, std::string_view text,
                                 PositionEncoding encoding);

// The correctness and timing problems of a check, as diagnostics on `forward_line` (0-based)
// of `text`: the failure itself (error), then each flag (warning), then a slower-than-eager note.
std::vector<nlohmann::json> verdict_diagnostics(const protocol::Verdict& verdict, std::string_view text,
                                                int forward_line, PositionEncoding encoding);

// A profiler suggestion placed on its source line (an Information diagnostic whose code is the
// rule); nullopt when the profiler could not place it.
std::optional<nlohmann::json> suggestion_diagnostic(const protocol::Suggestion& suggestion, std::string_view text,
                                                    PositionEncoding encoding);

}  // namespace hone::lsp
