// lsp/results.h: what the server knows about each open kernel: its last build (compile report
// JSON: diagnostics and per-kernel static facts), last check verdict, last profile, the
// optimizer's proposals, which jobs run on it, and where its diagnostics were published.
// JSON values are the shapes of protocol/schema (verdict.schema.json, lsp.schema.json).
// Any thread; each call is atomic.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

namespace hone::lsp {

struct KernelResults {
  std::optional<int> built_version;  // document version of the last finished build
  nlohmann::json compile;            // verdict.schema.json#/$defs/compile, or null
  nlohmann::json check;              // the last verdict, or null
  nlohmann::json profile;            // the last profile result (a verdict with `profile`), or null
  nlohmann::json optimize;           // lsp.schema.json#/$defs/OptimizeResult, or null
  std::set<std::string> running;     // kinds of the jobs running on this kernel
  std::set<std::string> diagnostic_uris;  // where its diagnostics were last published
};

class ResultStore {
 public:
  KernelResults get(const std::string& uri) const;
  void update(const std::string& uri, const std::function<void(KernelResults&)>& change);
  void erase(const std::string& uri);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, KernelResults> entries_;
};

}  // namespace hone::lsp
