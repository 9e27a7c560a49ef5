// toolchain/listing_counters.h: a profile's per-instruction counters (protocol/sass_counters.h)
// laid beside a SASS listing (machine_listing.h): each nvdisasm instruction line's `/*0040*/`
// offset is the pc_offset CUPTI counted at, within the same function; and the sums per source
// line those instructions map to (-lineinfo). Called by the engine's machine-code view; pure,
// any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/sass_counters.h"
#include "toolchain/machine_listing.h"

namespace hone::toolchain {

// The offset of an nvdisasm instruction line ("        /*0040*/   LDG.E R2, desc[UR4][R2.64] ;"
// -> 0x40); nullopt for labels, directives, comments and encodings ("/* 0x000fe2... */").
std::optional<std::uint32_t> sass_line_offset(std::string_view line);

// The kernel of `counters` that `listing` shows: the same mangled symbol, else the same
// unqualified name (an extern "C" kernel, a name CUPTI gives demangled); null when none is.
const protocol::SassKernel* kernel_counters_for(const protocol::SassCounters& counters, const FunctionListing& listing);

struct SourceLineCounts {
  std::string file;
  int line = 0;  // 1-based
  protocol::SassCounts values;  // the sums over the instructions mapped to it
};

struct ListingCounts {
  // Per listing line: the instruction's counts; nullopt for lines that are no instruction, and
  // for instructions CUPTI did not count.
  std::vector<std::optional<protocol::SassCounts>> lines;
  std::vector<SourceLineCounts> source_lines;  // by file, then line
  std::size_t matched = 0;    // counted instructions found in the listing
  std::size_t unmatched = 0;  // counted offsets the listing has no instruction at (another build?)
};

ListingCounts count_listing(const FunctionListing& listing, const protocol::SassKernel& kernel);

}  // namespace hone::toolchain
