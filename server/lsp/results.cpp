// lsp/results.cpp: the per-kernel result table behind one mutex.
#include "lsp/results.h"

namespace hone::lsp {

KernelResults ResultStore::get(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(uri);
  return found == entries_.end() ? KernelResults{} : found->second;
}

void ResultStore::update(const std::string& uri, const std::function<void(KernelResults&)>& change) {
  std::lock_guard lock(mutex_);
  change(entries_[uri]);
}

void ResultStore::erase(const std::string& uri) {
  std::lock_guard lock(mutex_);
  entries_.erase(uri);
}

}  // namespace hone::lsp
