// lsp/machine_code_view.h: the reply of hone.showPtx / hone.showSass (lsp.schema.json's
// MachineCode) from the engine's MachineCode, and the annotated listing written to .hone/asm/
// for clients without a virtual-document view: each line's `// file:line` mark and, for SASS,
// the last profile's counters in aligned columns before each instruction under a header that
// says where they come from (or why there are none). Pure; called on a job thread.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine.h"

namespace hone::lsp {

// Short column titles of hone's SASS metrics ("smsp__sass_inst_executed" -> "warp inst"); the
// name without its "smsp__sass_" prefix for any other.
std::string counter_title(const std::string& metric);

// {uri, kind, symbol, name, functions, mapped, text, lines: [{text, file, line (0-based, -1),
// inFile, counters?}], counters? (SASS): {metrics, note, profiledAt?, sourceLines: [{file, line,
// inFile, counters}]}}; `kernel` decides inFile.
nlohmann::json machine_code_json(const MachineCode& code, const std::filesystem::path& kernel, const std::string& uri);

// The listing as text: for SASS a `// ` header (the note, then the column titles when there are
// counters) and the counter columns right-aligned before every line; `// file:line` marks after.
std::string annotated_listing(const MachineCode& code);

}  // namespace hone::lsp
