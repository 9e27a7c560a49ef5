// toolchain/machine_listing.h: a build's PTX (from its `.loc` lines, -lineinfo) or SASS (nvdisasm
// --print-line-info of its cubin) as one listing per function, each line mapped to the source
// line it came from, the way Compiler Explorer and Nsight's source view pair them. Pure parsing
// apart from sass_listings_of_cubin, which runs nvdisasm; any thread.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

struct ListingLine {
  std::string text;
  std::string file;  // the source file of the line ("" when the line has no mapping)
  int line = 0;      // 1-based source line; 0: none
};

struct FunctionListing {
  std::string symbol;  // mangled: "_Z4reluPfi"
  std::string name;    // unqualified: "relu"
  std::vector<ListingLine> lines;
};

// The .entry/.func bodies of a PTX text, `.loc` lines folded into the mapping of the lines after
// them (an inlined call's `.loc ... inlined_at F L C` maps to the call site's line L).
std::vector<FunctionListing> ptx_listings(std::string_view ptx);

// The functions of `nvdisasm --print-line-info` output: `.text.<symbol>:` sections, each
// instruction mapped by the `//## File "...", line N` comment before it.
std::vector<FunctionListing> sass_listings(std::string_view nvdisasm_output);

// Where a CUDA build (by its cache key, BuildResult::key) keeps its PTX and cubin in the cache
// folder (hone::cache_dir()); the files exist when the build succeeded.
std::filesystem::path build_ptx_path(const std::filesystem::path& cache_dir, const std::string& key);
std::filesystem::path build_cubin_path(const std::filesystem::path& cache_dir, const std::string& key);

// nvdisasm beside nvcc, else on PATH, else /usr/local/cuda/bin; nullopt where there is none.
std::optional<std::filesystem::path> find_nvdisasm(const std::filesystem::path& nvcc);

// The listing for the kernel named `name` (unqualified), else the one whose mapped lines cover
// `source_line` in `file`, else the first; null when there are none.
const FunctionListing* pick_listing(const std::vector<FunctionListing>& listings, const std::string& name,
                                    const std::filesystem::path& file, int source_line);

}  // namespace hone::toolchain
