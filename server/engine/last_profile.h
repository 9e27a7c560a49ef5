// engine/last_profile.h: the per-instruction (SASS) counters of the last profile of each build,
// kept in the workspace as .hone/profiles/<build key>.sass.json, so that the SASS view of the
// same build (same key: same source, flags, toolchain, so the same cubin) shows them, in this
// process or a later one (`hone profile`, then the editor). Engine-private: profile.cpp writes,
// machine_code.cpp reads; any thread (the file is replaced atomically).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "protocol/sass_counters.h"

namespace hone {

struct LastSassProfile {
  std::string build_key;
  std::string kernel;       // the kernel file profiled
  std::string profiled_at;  // the verdict's created_at (ISO 8601 UTC)
  protocol::SassCounters counters;
};

std::filesystem::path last_sass_profile_path(const std::filesystem::path& workspace, const std::string& build_key);

// Writes it; throws std::runtime_error when the file cannot be written.
void save_last_sass_profile(const std::filesystem::path& workspace, const LastSassProfile& profile);

// The one kept for `build_key`; nullopt when there is none, or it cannot be read.
std::optional<LastSassProfile> load_last_sass_profile(const std::filesystem::path& workspace, const std::string& build_key);

}  // namespace hone
