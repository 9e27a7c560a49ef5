// lsp/diagnostic_sets.cpp: see diagnostic_sets.h.
#include "lsp/diagnostic_sets.h"

#include <algorithm>
#include <set>

namespace hone::lsp {

using nlohmann::json;

DiagnosticSets::Publications DiagnosticSets::replace(const std::string& source, const std::map<std::string, json>& by_file) {
  std::lock_guard lock(mutex_);
  std::set<std::string> touched;
  for (auto& [file, sources] : by_file_) {
    if (sources.erase(source)) touched.insert(file);
  }
  for (const auto& [file, diagnostics] : by_file) {
    by_file_[file][source] = diagnostics.is_array() ? diagnostics : json::array();
    touched.insert(file);
  }
  Publications out;
  for (const std::string& file : touched) out.emplace_back(file, merged(file));
  std::erase_if(by_file_, [](const auto& entry) { return entry.second.empty(); });
  return out;
}

DiagnosticSets::Publications DiagnosticSets::remove(const std::string& source) {
  return replace(source, {});
}

bool DiagnosticSets::contributes(const std::string& source) const {
  std::lock_guard lock(mutex_);
  return std::any_of(by_file_.begin(), by_file_.end(), [&](const auto& entry) { return entry.second.count(source) > 0; });
}

json DiagnosticSets::merged(const std::string& file) const {
  json out = json::array();
  auto it = by_file_.find(file);
  if (it == by_file_.end()) return out;
  std::set<std::string> seen;
  auto add = [&](const json& diagnostics) {
    for (const json& d : diagnostics) {
      if (seen.insert(d.dump()).second) out.push_back(d);
    }
  };
  if (auto own = it->second.find(file); own != it->second.end()) add(own->second);
  for (const auto& [source, diagnostics] : it->second) {
    if (source != file) add(diagnostics);
  }
  return out;
}

}  // namespace hone::lsp
