// cupti/sass_table.cpp: metric choice and the per-instruction table of SASS metric records.
#include "sass_table.h"

#include <algorithm>

namespace hone::cupti {

std::vector<std::vector<std::string>> preferred_sass_metrics() {
  return {
      {"smsp__sass_inst_executed"},                 // warp-level instructions executed
      {"smsp__sass_thread_inst_executed"},          // thread-level (active threads)
      {"smsp__sass_thread_inst_executed_pred_on"},  // threads whose predicate was true
      {"smsp__sass_sectors_mem_global"},            // 32-byte sectors the global accesses touched
      {"smsp__sass_sectors_mem_global_ideal"},      // ... had they been perfectly coalesced
  };
}

SassMetricChoice choose_sass_metrics(const std::vector<std::vector<std::string>>& wanted,
                                     const std::vector<std::string>& available, const std::string& chip) {
  SassMetricChoice out;
  for (const auto& entry : wanted) {
    if (entry.empty()) continue;
    auto found = std::find_if(entry.begin(), entry.end(), [&](const std::string& name) {
      return std::find(available.begin(), available.end(), name) != available.end();
    });
    if (found == entry.end()) {
      out.omitted.emplace_back(entry.front(), "not offered by the SASS Metrics API on " + (chip.empty() ? "this GPU" : chip));
    } else if (std::find(out.collect.begin(), out.collect.end(), *found) == out.collect.end()) {
      out.collect.push_back(*found);
    }
  }
  return out;
}

SassTable::SassTable(std::map<std::uint64_t, std::string> metrics, std::size_t max_kernels, std::size_t max_instructions)
    : metrics_(std::move(metrics)), max_kernels_(max_kernels), max_instructions_(max_instructions) {}

void SassTable::add(const SassRecord& r) {
  auto metric = metrics_.find(r.metric_id);
  if (metric == metrics_.end()) return;
  const auto key = std::make_pair(r.cubin_crc, r.function);
  auto at = index_.find(key);
  if (at == index_.end()) {
    if (kernels_.size() >= max_kernels_) {
      dropped_kernels_.insert(key);
      return;
    }
    at = index_.emplace(key, kernels_.size()).first;
    kernels_.push_back({r.function, r.cubin_crc, r.function_index, {}});
  }
  Kernel& k = kernels_[at->second];
  auto row = k.rows.find(r.pc_offset);
  if (row == k.rows.end()) {
    if (rows_ >= max_instructions_) {
      dropped_rows_.insert({r.cubin_crc, r.function, r.pc_offset});
      return;
    }
    row = k.rows.emplace(r.pc_offset, std::map<std::string, std::uint64_t>{}).first;
    ++rows_;
  }
  row->second[metric->second] += r.value;
}

nlohmann::json SassTable::to_json() const {
  nlohmann::json kernels = nlohmann::json::array();
  for (const Kernel& k : kernels_) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [pc, values] : k.rows) rows.push_back({{"pc_offset", pc}, {"values", values}});
    kernels.push_back({{"function", k.function},
                       {"cubin_crc", k.cubin_crc},
                       {"function_index", k.function_index},
                       {"instructions", std::move(rows)}});
  }
  return {{"kernels", std::move(kernels)},
          {"kernels_dropped", dropped_kernels_.size()},
          {"instructions_dropped", dropped_rows_.size()}};
}

}  // namespace hone::cupti
