// toolchain/disk_memo.h: small JSON records cached on disk (cache_dir()/<folder>/<hash of key>.json,
// written atomically) for answers that cost a process spawn: tool versions, the torch
// environment, the local GPU's architecture. Any thread, any number of processes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hone::toolchain {

std::optional<nlohmann::json> read_memo(std::string_view folder, std::string_view key);
void write_memo(std::string_view folder, std::string_view key, const nlohmann::json& value);

// "<mtime ns>:<size>" of a file (following links); empty when it does not exist.
std::string file_stamp(const std::filesystem::path& path);

// Modification time in nanoseconds since the Unix epoch (as Python's os.stat().st_mtime_ns).
std::optional<long long> mtime_ns(const std::filesystem::path& path);

}  // namespace hone::toolchain
