// support/paths.cpp: locating the share and cache folders.
#include "support/paths.h"

#include <cstdlib>
#include <stdexcept>

namespace hone {

std::filesystem::path executable_path() { return std::filesystem::read_symlink("/proc/self/exe"); }

std::filesystem::path share_dir() {
  if (const char* env = std::getenv("HONE_SHARE_DIR"); env && *env) {
    std::filesystem::path p(env);
    if (!std::filesystem::is_directory(p)) throw std::runtime_error("HONE_SHARE_DIR=" + p.string() + " is not a folder");
    return p;
  }
  auto p = executable_path().parent_path().parent_path() / "share" / "hone";
  if (!std::filesystem::is_directory(p))
    throw std::runtime_error("hone's share folder is missing: expected " + p.string() +
                             " (set HONE_SHARE_DIR to hone's build/share/hone)");
  return p;
}

std::filesystem::path cache_dir() {
  std::filesystem::path p;
  if (const char* env = std::getenv("HONE_CACHE_DIR"); env && *env) {
    p = env;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    p = std::filesystem::path(xdg) / "hone";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    p = std::filesystem::path(home) / ".cache" / "hone";
  } else {
    p = std::filesystem::temp_directory_path() / "hone-cache";
  }
  std::filesystem::create_directories(p);
  return p;
}

}  // namespace hone
