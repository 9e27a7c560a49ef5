// cupti/sass_table.h: the pure half of SASS metric collection (no CUPTI calls, so tests build it
// without a GPU): which of hone's preferred per-instruction metrics a chip offers, and the table
// that folds CUPTI's flushed records (function, cubin CRC, pcOffset, metric id, value) into one
// row per instruction per kernel, bounded in kernels and instructions, as hone_cupti's JSON.
// Used by sass_session.cpp on the thread that ends the recording.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::cupti {

// hone's per-instruction metrics in priority order; each entry lists alternative names (the
// first one the chip offers is collected and reported under it).
std::vector<std::vector<std::string>> preferred_sass_metrics();

struct SassMetricChoice {
  std::vector<std::string> collect;                          // names the chip offers, in priority order
  std::vector<std::pair<std::string, std::string>> omitted;  // entry's first name, why it is left out
};

// Picks, for each entry of `wanted`, the first name in `available` (the chip's list from
// cuptiSassMetricsGetMetrics). `chip` only words the reasons.
SassMetricChoice choose_sass_metrics(const std::vector<std::vector<std::string>>& wanted,
                                     const std::vector<std::string>& available, const std::string& chip);

struct SassRecord {
  std::string function;  // as CUPTI names it (mangled)
  std::uint32_t cubin_crc = 0;
  std::uint32_t function_index = 0;
  std::uint32_t pc_offset = 0;  // bytes from the function's first instruction
  std::uint64_t metric_id = 0;
  std::uint64_t value = 0;
};

class SassTable {
 public:
  // `metrics`: the collected metrics by CUPTI id; values of other ids are ignored. At most
  // `max_kernels` kernels (the first seen) and `max_instructions` rows in all are kept; the rest
  // are counted as dropped.
  SassTable(std::map<std::uint64_t, std::string> metrics, std::size_t max_kernels, std::size_t max_instructions);

  // Adds a value; several values of one instruction and metric (SM or SMSP granularity) add up.
  void add(const SassRecord& record);

  // {"kernels": [{"function", "cubin_crc", "function_index", "instructions": [{"pc_offset",
  // "values": {metric: count}}] (by pc_offset)}] (first seen first), "kernels_dropped",
  // "instructions_dropped"}.
  nlohmann::json to_json() const;

 private:
  struct Kernel {
    std::string function;
    std::uint32_t cubin_crc = 0;
    std::uint32_t function_index = 0;
    std::map<std::uint32_t, std::map<std::string, std::uint64_t>> rows;  // by pc_offset
  };
  std::map<std::uint64_t, std::string> metrics_;
  std::size_t max_kernels_;
  std::size_t max_instructions_;
  std::vector<Kernel> kernels_;
  std::map<std::pair<std::uint32_t, std::string>, std::size_t> index_;  // (crc, function) -> kernels_ index
  std::size_t rows_ = 0;
  std::set<std::pair<std::uint32_t, std::string>> dropped_kernels_;
  std::set<std::tuple<std::uint32_t, std::string, std::uint32_t>> dropped_rows_;  // (crc, function, pc)
};

}  // namespace hone::cupti
