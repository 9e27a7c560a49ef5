// engine/last_profile.cpp: .hone/profiles/<build key>.sass.json, written and read.
#include "engine/last_profile.h"

#include <nlohmann/json.hpp>

#include "support/hash.h"

namespace hone {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path last_sass_profile_path(const fs::path& workspace, const std::string& build_key) {
  return workspace / ".hone" / "profiles" / (build_key + ".sass.json");
}

void save_last_sass_profile(const fs::path& workspace, const LastSassProfile& p) {
  const fs::path file = last_sass_profile_path(workspace, p.build_key);
  fs::create_directories(file.parent_path());
  json j = {{"build_key", p.build_key}, {"kernel", p.kernel}, {"profiled_at", p.profiled_at}, {"sass", p.counters}};
  write_file_atomic(file, j.dump());
}

std::optional<LastSassProfile> load_last_sass_profile(const fs::path& workspace, const std::string& build_key) {
  const fs::path file = last_sass_profile_path(workspace, build_key);
  std::error_code ec;
  if (build_key.empty() || !fs::is_regular_file(file, ec)) return std::nullopt;
  try {
    const json j = json::parse(read_file(file));
    if (j.value("build_key", std::string()) != build_key) return std::nullopt;
    LastSassProfile p;
    p.build_key = build_key;
    p.kernel = j.value("kernel", std::string());
    p.profiled_at = j.value("profiled_at", std::string());
    p.counters = j.at("sass").get<protocol::SassCounters>();
    return p;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace hone
