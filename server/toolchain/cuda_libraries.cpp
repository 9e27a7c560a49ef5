// toolchain/cuda_libraries.cpp: headers -> CUDA libraries -> link flags.
#include "toolchain/cuda_libraries.h"

#include <regex>
#include <set>
#include <system_error>

namespace hone::toolchain {
namespace {

namespace fs = std::filesystem;

struct HeaderLibrary {
  const char* header_pattern;  // the header's name (a regex over what follows #include <)
  const char* library;
  const char* header;          // a header to find when it is not in the toolkit
};

// cuRAND's device API (curand_kernel.h) is header-only: it needs no library.
constexpr HeaderLibrary kHeaders[] = {
    {R"(cublas(_v2|_api|Xt)?\.h)", "cublas", "cublas_v2.h"},
    {R"(cublasLt\.h)", "cublasLt", "cublasLt.h"},
    {R"(curand\.h)", "curand", "curand.h"},
    {R"(cufft(Xt|w)?\.h)", "cufft", "cufft.h"},
    {R"(cusparse(_v2)?\.h)", "cusparse", "cusparse.h"},
    {R"(cusolver(Dn|Sp|Rf|Mg)?\.h)", "cusolver", "cusolverDn.h"},
    {R"(cudnn(_\w+)?\.h)", "cudnn", "cudnn.h"},
};

bool has_library(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return false;
  if (fs::exists(dir / ("lib" + name + ".so"), ec)) return true;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("lib" + name + ".so.", 0) == 0) return true;
  return false;
}

// The NVIDIA wheels beside torch: <site-packages>/nvidia/<package>/{lib,include} (and cu13/...).
std::vector<fs::path> wheel_dirs(const fs::path& torch_library_dir, const char* leaf) {
  std::vector<fs::path> out;
  if (torch_library_dir.empty()) return out;
  const fs::path nvidia = torch_library_dir.parent_path().parent_path() / "nvidia";
  std::error_code ec;
  if (!fs::is_directory(nvidia, ec)) return out;
  for (const auto& e : fs::directory_iterator(nvidia, ec))
    if (fs::is_directory(e.path() / leaf, ec)) out.push_back(e.path() / leaf);
  return out;
}

}  // namespace

std::vector<std::string> cuda_libraries_named(const std::vector<std::string_view>& texts) {
  std::vector<std::string> out;
  for (const auto& h : kHeaders) {
    const std::regex include(std::string(R"(#\s*include\s*[<"])") + h.header_pattern + "[>\"]");
    for (std::string_view text : texts) {
      if (std::regex_search(text.begin(), text.end(), include)) {
        out.emplace_back(h.library);
        break;
      }
    }
  }
  return out;
}

std::vector<CudaLibrary> locate_cuda_libraries(const std::vector<std::string>& names, const fs::path& toolkit_root,
                                               const fs::path& torch_library_dir) {
  std::vector<CudaLibrary> out;
  for (const auto& name : names) {
    CudaLibrary lib{name, {}, {}};
    std::vector<fs::path> dirs{toolkit_root / "lib64", toolkit_root / "targets" / "x86_64-linux" / "lib"};
    if (!torch_library_dir.empty()) dirs.push_back(torch_library_dir);
    for (const auto& d : wheel_dirs(torch_library_dir, "lib")) dirs.push_back(d);
    for (const auto& d : dirs) {
      if (has_library(d, name)) {
        lib.library_dir = d;
        break;
      }
    }
    const char* header = nullptr;
    for (const auto& h : kHeaders)
      if (name == h.library) header = h.header;
    std::error_code ec;
    if (header && !fs::exists(toolkit_root / "include" / header, ec))
      for (const auto& d : wheel_dirs(torch_library_dir, "include"))
        if (fs::exists(d / header, ec)) lib.include_dir = d;
    out.push_back(std::move(lib));
  }
  return out;
}

std::vector<std::string> cuda_library_flags(const std::vector<CudaLibrary>& libraries) {
  std::vector<std::string> flags;
  std::set<fs::path> dirs, includes;
  for (const auto& lib : libraries) {
    if (!lib.include_dir.empty() && includes.insert(lib.include_dir).second) flags.push_back("-I" + lib.include_dir.string());
    if (!lib.library_dir.empty() && dirs.insert(lib.library_dir).second) {
      flags.push_back("-L" + lib.library_dir.string());
      flags.insert(flags.end(), {"-Xlinker", "-rpath", "-Xlinker", lib.library_dir.string()});
    }
  }
  for (const auto& lib : libraries) flags.push_back("-l" + lib.name);
  return flags;
}

}  // namespace hone::toolchain
