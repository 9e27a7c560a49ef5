// support/paths.h: where hone's own files live (the share folder beside the binaries: raw-form
// headers, the eval worker, prompt templates) and where it caches builds and measurements.
#pragma once

#include <filesystem>

namespace hone {

// The running executable (from /proc/self/exe).
std::filesystem::path executable_path();

// $HONE_SHARE_DIR, else <dir of executable>/../share/hone. Throws if it does not exist.
std::filesystem::path share_dir();

// $HONE_CACHE_DIR, else $XDG_CACHE_HOME/hone, else ~/.cache/hone. Created on first use.
std::filesystem::path cache_dir();

}  // namespace hone
