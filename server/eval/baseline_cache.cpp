// eval/baseline_cache.cpp: the on-disk cache of reference timings.
#include "eval/baseline_cache.h"

#include <cstdlib>
#include <string_view>

#include "support/hash.h"

namespace hone::eval {

using nlohmann::json;

namespace {

// The worker's device-time method as a baseline's key names it ($HONE_DEVICE_TIME: counters
// flushed before each kernel, the default, as ncu counts; "counters-call", flushed once per call;
// "records"): a baseline of one method never stands in for another.
std::string device_time_method() {
  const char* variable = std::getenv("HONE_DEVICE_TIME");
  const std::string_view method = variable ? variable : "";
  if (method == "records") return "records";
  // Counters flushed once per call were the default's key ("counters") until 2026-12-05: a
  // baseline counted that way is not one counted as ncu counts, each kernel from a flushed cache.
  return method == "counters-call" ? "counters" : "counters-each-kernel";
}

// The flush's diagnostic settings ($HONE_FLUSH_MODE, $HONE_FLUSH_L2_MULTIPLE: the worker's and the
// harness's flush probe), when set: a baseline timed after another flush is not the default's.
std::string flush_setting() {
  std::string out;
  for (const char* name : {"HONE_FLUSH_MODE", "HONE_FLUSH_L2_MULTIPLE"})
    if (const char* value = std::getenv(name); value && *value) out += std::string(name) + "=" + value + ";";
  return out;
}

}  // namespace

BaselineCache::BaselineCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::filesystem::path BaselineCache::path_for(const BaselineKey& key) const {
  Sha256 h;
  // v4: entries written before the worker told a busy machine apart (machine_load.py) may hold a
  // CPU baseline slowed by a steady load (tasks/matmul.py's 6.11 ms for 2.24 ms): never reused.
  h.field("baseline-v4").field(key.task_hash).field(key.device_name).field(key.torch_version).field(key.mode);
  h.field(device_time_method());
  if (auto flush = flush_setting(); !flush.empty()) h.field(flush);
  return dir_ / (h.hex() + ".json");
}

std::optional<BaselineEntry> BaselineCache::find(const BaselineKey& key) const {
  auto path = path_for(key);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    json j = json::parse(read_file(path));
    BaselineEntry entry;
    if (j.contains("timing") && !j["timing"].is_null()) entry.timing = j["timing"].get<protocol::Timing>();
    entry.unavailable = j.value("unavailable", std::string());
    entry.noisy = j.value("noisy", std::string());
    if (!entry.timing && entry.unavailable.empty()) return std::nullopt;
    return entry;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged entry is measured again and overwritten
  }
}

void BaselineCache::store(const BaselineKey& key, const BaselineEntry& entry) const {
  if (!entry.noisy.empty()) return;  // a noisy timing is never a baseline: the next check measures it again
  std::filesystem::create_directories(dir_);
  json j{{"task_hash", key.task_hash},
         {"device", key.device_name},
         {"torch", key.torch_version},
         {"mode", key.mode},
         {"timing", entry.timing ? json(*entry.timing) : json(nullptr)}};
  if (!entry.unavailable.empty()) j["unavailable"] = entry.unavailable;
  if (!entry.noisy.empty()) j["noisy"] = entry.noisy;
  write_file_atomic(path_for(key), j.dump(2) + "\n");
}

std::optional<BaselineEntry> BaselineCache::find_noisy(const BaselineKey& key) const {
  std::lock_guard lock(noisy_mutex_);
  auto it = noisy_.find(path_for(key).string());
  if (it == noisy_.end()) return std::nullopt;
  return it->second;
}

void BaselineCache::remember_noisy(const BaselineKey& key, const BaselineEntry& entry) const {
  std::lock_guard lock(noisy_mutex_);
  noisy_[path_for(key).string()] = entry;
}

}  // namespace hone::eval
