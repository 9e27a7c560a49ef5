// toolchain/listing_counters.cpp: SASS counters by nvdisasm offset, and per source line.
#include "toolchain/listing_counters.h"

#include <cctype>
#include <map>
#include <utility>

#include "toolchain/demangle.h"

namespace hone::toolchain {

std::optional<std::uint32_t> sass_line_offset(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (line.substr(i, 2) != "/*") return std::nullopt;
  i += 2;
  std::uint32_t value = 0;
  std::size_t digits = 0;
  for (; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])); ++i, ++digits) {
    if (digits == 8) return std::nullopt;
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i])));
    value = value * 16 + static_cast<std::uint32_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  if (digits == 0 || line.substr(i, 2) != "*/") return std::nullopt;
  return value;
}

const protocol::SassKernel* kernel_counters_for(const protocol::SassCounters& counters, const FunctionListing& listing) {
  for (const auto& k : counters.kernels)
    if (!listing.symbol.empty() && k.function == listing.symbol) return &k;
  for (const auto& k : counters.kernels)
    if (!listing.name.empty() && function_base_name(demangle(k.function)) == listing.name) return &k;
  return nullptr;
}

ListingCounts count_listing(const FunctionListing& listing, const protocol::SassKernel& kernel) {
  std::map<std::uint32_t, const protocol::SassCounts*> by_offset;
  for (const auto& i : kernel.instructions) by_offset[i.pc_offset] = &i.values;
  ListingCounts out;
  out.lines.resize(listing.lines.size());
  std::map<std::pair<std::string, int>, protocol::SassCounts> sums;
  for (std::size_t n = 0; n < listing.lines.size(); ++n) {
    const ListingLine& l = listing.lines[n];
    const auto offset = sass_line_offset(l.text);
    if (!offset) continue;
    auto found = by_offset.find(*offset);
    if (found == by_offset.end()) continue;
    out.lines[n] = *found->second;
    ++out.matched;
    by_offset.erase(found);
    if (l.line <= 0) continue;
    protocol::SassCounts& sum = sums[{l.file, l.line}];
    for (const auto& [metric, value] : *out.lines[n]) sum[metric] += value;
  }
  out.unmatched = by_offset.size();
  for (auto& [where, values] : sums) out.source_lines.push_back({where.first, where.second, std::move(values)});
  return out;
}

}  // namespace hone::toolchain
