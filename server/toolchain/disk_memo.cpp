// toolchain/disk_memo.cpp: JSON records under the cache folder.
#include "toolchain/disk_memo.h"

#include <sys/stat.h>

#include "support/hash.h"
#include "support/paths.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

fs::path memo_path(std::string_view folder, std::string_view key) {
  return cache_dir() / std::string(folder) / (sha256_hex(key).substr(0, 32) + ".json");
}

}  // namespace

std::optional<nlohmann::json> read_memo(std::string_view folder, std::string_view key) {
  std::error_code ec;
  fs::path path = memo_path(folder, key);
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(read_file(path));
    // The key is stored too: a hash collision or a foreign file reads as a miss.
    if (!j.is_object() || j.value("key", std::string()) != key) return std::nullopt;
    return j.at("value");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void write_memo(std::string_view folder, std::string_view key, const nlohmann::json& value) {
  fs::path path = memo_path(folder, key);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  try {
    write_file_atomic(path, nlohmann::json{{"key", key}, {"value", value}}.dump());
  } catch (const std::exception&) {
    // A read-only cache only costs the next caller a re-run.
  }
}

std::optional<long long> mtime_ns(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

std::string file_stamp(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return std::to_string(*mtime_ns(path)) + ":" + std::to_string(st.st_size);
}

}  // namespace hone::toolchain
