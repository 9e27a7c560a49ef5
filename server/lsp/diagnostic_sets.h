// lsp/diagnostic_sets.h: what each built document contributes to each file's diagnostics, merged
// per file. publishDiagnostics replaces a file's whole set, so a header that two open kernels
// include (or that is open and built itself) must be published with every source's part at once:
// publishing one includer's part alone would wipe the header's own and the other includer's. Any
// thread; each call is atomic.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::lsp {

class DiagnosticSets {
 public:
  // (file uri, its merged diagnostics) for each file whose set may have changed.
  using Publications = std::vector<std::pair<std::string, nlohmann::json>>;

  // `source`'s diagnostics become `by_file` (file uri -> array); answers the merged sets of every
  // file it touched now or before.
  Publications replace(const std::string& source, const std::map<std::string, nlohmann::json>& by_file);
  // Forgets `source` (a closed document); answers the merged sets of the files it had touched.
  Publications remove(const std::string& source);
  // Whether `source` has a part in some file's diagnostics.
  bool contributes(const std::string& source) const;

 private:
  // A file's set: its own diagnostics first, then each other source's in uri order, duplicates
  // (the same diagnostic from two includers) once.
  nlohmann::json merged(const std::string& file) const;

  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::string, nlohmann::json>> by_file_;  // file -> source -> array
};

}  // namespace hone::lsp
