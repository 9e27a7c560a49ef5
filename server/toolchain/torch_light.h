// toolchain/torch_light.h: what a torch-form kernel needs from torch, read from its text, so the
// build can parse the light stand-in for <torch/extension.h> (server/include/hone/torch_light.h)
// instead of the full header: the per-operator headers (<ATen/ops/NAME.h>) of the torch:: and
// at:: functions it calls, <ATen/Dispatch.h> when it uses AT_DISPATCH, or the reason the light
// header cannot serve (the C++ frontend, autograd, other torch/ headers). Used by the
// KernelBuilder; pure apart from file-existence checks, any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

struct TorchLightPlan {
  bool usable = false;          // false: build with the full header from the start
  std::string why_full;         // when not usable: what in the source needs the full header
  std::vector<std::string> op_headers;  // "ATen/ops/empty_like.h", ... (existing ones only)
  bool dispatch = false;        // the source uses AT_DISPATCH_* / AT_PRIVATE_*
  std::string ops_header_text;  // the contents of hone_torch_ops.h
};

// `texts`: the kernel and its local headers. `include_dirs`: torch's include folders.
TorchLightPlan plan_torch_light(const std::vector<std::string_view>& texts,
                                const std::vector<std::filesystem::path>& include_dirs);

// The name of the generated file torch_light.h includes (written to the build folder).
inline constexpr const char* kTorchOpsHeader = "hone_torch_ops.h";

}  // namespace hone::toolchain
