// eval/baseline_cache.h: reference timings (eager and torch.compile) cached on disk per (task hash,
// device name, torch version, mode), so each is measured once per machine. Any thread: entries
// are whole files written atomically.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "protocol/verdict.h"

namespace hone::eval {

struct BaselineKey {
  std::string task_hash;
  std::string device_name;  // "NVIDIA H200", or the CPU's model name
  std::string torch_version;
  std::string mode;         // "eager" | "compile"
};

// One cached measurement: a timing, or the reason the mode could not be timed (torch.compile
// missing on torch < 2), which is cached too.
struct BaselineEntry {
  std::optional<protocol::Timing> timing;
  std::string unavailable;
  std::string noisy;  // set when the timing stayed noisy (a busy machine): such an entry is never stored
};

class BaselineCache {
 public:
  explicit BaselineCache(std::filesystem::path dir);  // e.g. cache_dir()/baselines

  std::optional<BaselineEntry> find(const BaselineKey& key) const;
  // Writes the entry; one marked noisy is not written (only quiet timings are baselines).
  void store(const BaselineKey& key, const BaselineEntry& entry) const;
  std::filesystem::path path_for(const BaselineKey& key) const;

  // The last noisy measurement of this process, kept in memory only: an optimize run's
  // candidates use it (flagged) instead of timing the reference again for every candidate.
  std::optional<BaselineEntry> find_noisy(const BaselineKey& key) const;
  void remember_noisy(const BaselineKey& key, const BaselineEntry& entry) const;

 private:
  std::filesystem::path dir_;
  mutable std::mutex noisy_mutex_;
  mutable std::map<std::string, BaselineEntry> noisy_;  // by path_for(key)
};

}  // namespace hone::eval
