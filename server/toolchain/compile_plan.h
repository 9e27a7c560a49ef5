// toolchain/compile_plan.h: the generated translation unit and the compiler command of one
// kernel build. The TU is `#line 1 "<user path>"` + the source + `#line 1 "<hone entry>"` +
// `#include "hone/raw_entry.h"` (or torch_entry.h), so diagnostics point into the user's file.
// Paths inside the command are relative to the build's working folder, so the command (and the
// cache key over it) does not depend on where the build runs. Used by the KernelBuilder.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolchain/kernel_source.h"
#include "toolchain/torch_env.h"

namespace hone::toolchain {

struct PlanInputs {
  std::filesystem::path kernel;      // absolute
  std::string source;                // the kernel's text
  KernelLanguage language = KernelLanguage::Cuda;
  KernelForm form = KernelForm::Raw;
  std::filesystem::path compiler;    // nvcc, or the host compiler for .cpp
  std::filesystem::path host_compiler;
  std::string arch;                  // CUDA only
  std::filesystem::path share_dir;
  const TorchEnv* torch = nullptr;   // torch form only
  std::optional<std::filesystem::path> glue_object;  // torch form: the cached torch_glue.o
  std::string op_namespace;          // torch form
  bool torch_light = false;          // torch form: the light <torch/extension.h> (hone/torch_light.h),
                                     // with hone_torch_ops.h written in the build folder
  bool fp16_headers = true;          // raw CUDA form: false spares the kernel cuda_fp16.h/cuda_bf16.h
  bool std_headers = true;           // raw form: false (HONE_LEAN_STD) spares it <string>/<stdexcept>
  std::vector<std::string> extra_flags;
  // Any file, form or not (a project's .cu, a header): compiled to an object for its diagnostics
  // and facts only, no hone entry appended, no library linked; project_flags (compile_db.h) go
  // before -I<kernel folder> and extra_flags; `prefix` (a header's includer up to its #include,
  // with its own #line) goes before the kernel's text.
  bool plain = false;
  std::vector<std::string> project_flags;
  std::string prefix;
  // A load_inline answer's functions (torch form): hone/inline_entry.h registers each as
  // torch.ops.<op_namespace>.<name> instead of torch_entry.h's forward.
  std::vector<std::string> inline_functions;
  std::vector<std::string> link_flags;  // after the sources: CUDA libraries (toolchain/cuda_libraries.h)
  std::string prelude;               // before the user's `#line 1` (toolchain/task_constants.h)
};

struct CompilePlan {
  std::string tu_name;                 // "kernel.cu" | "kernel.cpp"
  std::string tu_text;
  std::vector<std::string> argv;       // run in the build folder
  std::string library_name = "kernel.so";  // "kernel.o" for a plain build
  std::string keep_dir = "keep";       // nvcc's intermediate files (PTX, cubin)
};

CompilePlan make_compile_plan(const PlanInputs& in);

// Whether any of the texts (a raw kernel and its local headers) names a 16-bit float type or
// intrinsic ("half", "bfloat16", "bf16" in any case): if none does, the build sets
// fp16_headers = false (and rebuilds with them should the kernel fail to compile without).
bool names_16bit_floats(const std::vector<std::string_view>& texts);

// Whether a raw kernel's texts name the standard library (std::, strings, using namespace): if
// not, hone.h may leave out <string> and <stdexcept> (std_headers = false), with the same rebuild
// should the kernel fail to compile without them.
bool names_std_library(const std::vector<std::string_view>& texts);

// The torch-form flags shared by the kernel and the glue: -std=c++17, the ABI define, torch's
// include folders as system headers (their warnings are not the user's).
std::vector<std::string> torch_compile_flags(const TorchEnv& torch);

}  // namespace hone::toolchain
