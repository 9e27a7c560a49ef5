// lsp/results.h: what the server knows about each open kernel: its last build (compile report:
// diagnostics and per-kernel static facts), last check verdict, last profile, the optimizer's
// proposals and which jobs run on it (where its diagnostics went: lsp/diagnostic_sets.h). Typed values; they
// become JSON only in hone/result and the jobs' answers. Any thread; each call is atomic.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "lsp/job_results.h"
#include "protocol/verdict.h"

namespace hone::lsp {

struct KernelResults {
  std::optional<int> built_version;            // document version of the last finished build
  std::optional<protocol::CompileReport> compile;
  std::optional<protocol::Verdict> check;      // the last verdict
  std::optional<protocol::Verdict> profile;    // the last profile's verdict (with its `profile`)
  std::optional<OptimizeResult> optimize;      // the last optimizer run and the proposals so far
  std::set<std::string> running;               // kinds of the jobs running on this kernel
  std::optional<std::string> before_proposal;  // the text an applied proposal replaced (hone.undoProposal)
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
