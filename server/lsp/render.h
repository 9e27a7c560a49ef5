// lsp/render.h: words and LSP shapes from hone's results, as pure functions over the JSON forms
// fixed by protocol/schema/verdict.schema.json (a verdict, a compile report's diagnostics and
// kernel facts, a profile): lens titles, inlay hint labels, hover markdown, diagnostics with
// 0-based ranges. Called from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/documents.h"

namespace hone::lsp {

// "✓ correct · 41.2 µs · 1.8× eager · 0.9× compile", "✗ mismatch at out[3,17]: 0.51 vs 0.5",
// "✗ compile error: 2 errors", "✗ runtime error: <reason>".
std::string verdict_summary(const nlohmann::json& verdict);

// "32 regs · 4 KiB smem · 75% occ" from a kernel_static object; empty when it holds no facts.
std::string kernel_hint_label(const nlohmann::json& kernel_static);

// Markdown for a hover on `forward`: the verdict's summary, timings against the baselines,
// the device and the flags.
std::string verdict_hover_markdown(const nlohmann::json& verdict);

// Markdown for a hover on a kernel: static facts, then the profile's derived counters and
// roofline position for that kernel when `profile` (verdict.profile, profile.schema.json) has them.
std::string kernel_hover_markdown(const nlohmann::json& kernel_static, const nlohmann::json& profile);

// One toolchain diagnostic (1-based line/column; 0 = unknown) as an LSP Diagnostic in `text`:
// 0-based positions in the encoding; a known column starts the range there and runs to the end
// of the word; a missing column covers the line; a missing line marks the first line.
nlohmann::json to_lsp_diagnostic(const nlohmann::json& diagnostic, std::string_view text,
                                 PositionEncoding encoding);

// The correctness and timing problems of a check, as diagnostics on `forward_line` (0-based)
// of `text`: the failure itself (error), then each flag (warning), then a slower-than-eager note.
std::vector<nlohmann::json> verdict_diagnostics(const nlohmann::json& verdict, std::string_view text,
                                                int forward_line, PositionEncoding encoding);

// The profiler's suggestions in a result (verdict.profile.suggestions, profile.schema.json
// #/$defs/suggestion: title, detail, evidence[], gain, location), or a profile's own.
std::vector<nlohmann::json> suggestions_of(const nlohmann::json& result);
// Its 1-based source line (location.line), when the profiler could place it.
std::optional<int> suggestion_line(const nlohmann::json& suggestion);
// "Use 16-byte loads (bytes_per_sector = 8 B < 32) — est. up to 1.5× faster".
std::string suggestion_text(const nlohmann::json& suggestion);

// Formats a number the way the lenses do: 3 significant digits ("41.2", "0.91", "1234").
std::string format_number(double value);

}  // namespace hone::lsp
