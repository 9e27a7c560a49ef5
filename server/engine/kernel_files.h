// engine/kernel_files.h: what hone reads from a kernel file without building it, for the editor:
// which files are kernels (the toolchain's one list of file types), which open files the server
// builds and checks, and where lenses and hints anchor. Pure functions apart from reading
// hone.toml and local headers; any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

// None: not a file hone builds; Source: a translation unit (.cu, .cpp, .cc, .cxx); Header: a
// header other kernels may include (.cuh), built on its own too.
enum class KernelFile { None, Source, Header };
KernelFile kernel_file_kind(const std::filesystem::path& path);

// Whether hone treats an open file as a kernel (builds it, publishes its diagnostics, shows
// lenses): every CUDA file; a C++ file only when it is a hone kernel: it includes hone.h or
// torch/extension.h (or ATen), defines `forward`, or names its task (`// hone: task=` or a
// hone.toml entry). Ordinary C++ files are left to other tools.
bool is_hone_kernel(const std::filesystem::path& path, std::string_view text);

// Where `forward` and the __global__ functions defined in the file itself are (1-based lines);
// empty when the file is not a kernel or its source cannot be analysed.
struct KernelOutline {
  struct Global {
    std::string name;  // unqualified
    int line = 0;
  };
  std::optional<int> forward_line;
  std::vector<Global> globals;
};
KernelOutline kernel_outline(const std::filesystem::path& path, std::string_view text);

// The unqualified name in a demangled kernel signature, the form the outline's names take:
// "void ns::relu<float>(float*, int)" -> "relu" (build reports name kernels demangled).
std::string kernel_base_name(const std::string& demangled);

}  // namespace hone
