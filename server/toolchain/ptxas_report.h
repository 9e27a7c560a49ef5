// toolchain/ptxas_report.h: per-kernel resources from `ptxas -v` (nvcc -Xptxas -v): registers,
// spill stores/loads, static shared memory, stack frame, constant banks when ptxas prints them.
// Used by the KernelBuilder after a CUDA build; pure function, any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

struct KernelResources {
  std::optional<std::int64_t> registers;
  std::optional<std::int64_t> spill_store_bytes;
  std::optional<std::int64_t> spill_load_bytes;
  std::optional<std::int64_t> static_shared_bytes;
  std::optional<std::int64_t> stack_frame_bytes;
  std::optional<std::int64_t> constant_bytes;  // sum of "N bytes cmem[k]" (older ptxas prints them)
};

// Entry functions (mangled name -> resources) in the order ptxas compiled them; `order` lists them.
struct PtxasReport {
  std::map<std::string, KernelResources> kernels;
  std::vector<std::string> order;
};

PtxasReport parse_ptxas_verbose(std::string_view output);

}  // namespace hone::toolchain
