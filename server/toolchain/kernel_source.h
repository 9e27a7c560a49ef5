// toolchain/kernel_source.h: what hone reads from a kernel's source without compiling it: the
// language (by extension), the form (raw: includes "hone.h"; torch: includes torch/ATen headers),
// the line of `forward`, every __global__ function with its __launch_bounds__, the launch sites
// `name<<<grid, block>>>` with their block size when it is a constant visible in the file, and
// the closure of local `#include "..."` headers. Called by the KernelBuilder, the language server
// (lenses, hints) and the optimizer's tuner; pure functions apart from reading headers, any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

enum class KernelLanguage { Cuda, Cpp };
enum class KernelForm { Raw, Torch };
std::string_view to_string(KernelLanguage language);  // "cuda" | "cpp"
std::string_view to_string(KernelForm form);          // "raw" | "torch"

// The file types hone builds (the one list): .cu/.cuh -> Cuda (nvcc, a GPU architecture);
// .cpp/.cc/.cxx -> Cpp (host compiler, CPU device). A header (.cuh) is built on its own when it is
// open in the editor, and other kernels may include it.
struct KernelFileType {
  std::string_view extension;  // ".cu"
  KernelLanguage language;
  bool header;
};
std::span<const KernelFileType> kernel_file_types();
std::optional<KernelFileType> kernel_file_type(const std::filesystem::path& path);
std::optional<KernelLanguage> language_for_path(const std::filesystem::path& path);

struct SourceLocation {
  std::filesystem::path file;
  int line = 0;
};

struct GlobalFunction {
  std::string name;                          // unqualified: "relu_kernel"
  std::filesystem::path file;                // the kernel or the local header that defines it
  int line = 0;                              // of the name
  std::optional<std::int64_t> launch_bounds;  // max threads per block, when a visible constant
};

struct LaunchSite {
  std::string kernel;  // the launched function's unqualified name
  std::filesystem::path file;
  int line = 0;
  std::string block_expression;                // the second <<< >>> argument as written
  std::optional<std::int64_t> block_threads;   // its value when it is a visible constant
};

struct LocalHeader {
  std::filesystem::path path;  // absolute, normalised
  std::string contents;
};

struct SourceFacts {
  KernelLanguage language = KernelLanguage::Cuda;
  std::optional<KernelForm> form;   // nullopt: neither hone.h nor torch headers are included
  std::optional<SourceLocation> forward;  // the kernel's file first, then its local headers
  std::vector<GlobalFunction> globals;
  std::vector<LaunchSite> launches;
  std::vector<LocalHeader> headers;  // the closure of local includes, in discovery order

  // The __global__ function of that unqualified name, or null.
  const GlobalFunction* find_global(std::string_view name) const;
};

// Analyses `text` (the kernel's contents, saved or not) as if it were at `path`. Local headers
// are resolved relative to the including file, then the kernel's folder, and read from disk.
// Throws std::runtime_error for an unknown extension.
SourceFacts analyze_kernel_source(const std::filesystem::path& path, std::string_view text);

// Error texts shared by the builder and its callers when the analysis rules a kernel out.
std::string unknown_extension_message(const std::filesystem::path& path);
std::string no_form_message();
std::string no_forward_message(std::optional<KernelForm> form);

}  // namespace hone::toolchain
