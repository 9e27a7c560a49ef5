// toolchain/tools.cpp: locating nvcc, the host compiler and cuobjdump; cached version lines and
// the local GPU's architecture.
#include "toolchain/tools.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <stdexcept>

#include "support/hash.h"
#include "support/subprocess.h"
#include "toolchain/disk_memo.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && find_program(p.string()).has_value();
}

ToolLookup found(const fs::path& path) {
  ToolLookup r;
  try {
    r.tool = Tool{path, tool_version(path)};
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

ToolLookup missing(std::string error) {
  ToolLookup r;
  r.error = std::move(error);
  return r;
}

const char* kInstallNvcc =
    "install the CUDA toolkit, or put nvcc on PATH, or set HONE_NVCC to the nvcc binary or CUDA_HOME to the toolkit";

// The first informative line of `--version` output.
std::string version_line(const fs::path& binary, const std::string& out) {
  static const std::regex nvcc_release(R"(release [0-9.]+, V[0-9.]+)");
  std::smatch m;
  if (std::regex_search(out, m, nvcc_release)) return "nvcc " + m.str();
  auto eol = out.find('\n');
  std::string first = out.substr(0, eol);
  return first.empty() ? binary.filename().string() : first;
}

}  // namespace

ToolLookup find_nvcc() {
  if (auto v = env("HONE_NVCC")) {
    if (!executable(*v)) return missing("nvcc not found: HONE_NVCC=" + *v + " is not an executable file; " + kInstallNvcc);
    return found(*v);
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto home = env(var)) {
      fs::path p = fs::path(*home) / "bin" / "nvcc";
      if (!executable(p)) return missing("nvcc not found: " + std::string(var) + "=" + *home + " has no bin/nvcc; " + kInstallNvcc);
      return found(p);
    }
  }
  if (auto p = find_program("nvcc")) return found(*p);
  if (executable("/usr/local/cuda/bin/nvcc")) return found("/usr/local/cuda/bin/nvcc");
  return missing(std::string("nvcc not found (HONE_NVCC and CUDA_HOME unset, not on PATH, no /usr/local/cuda/bin/nvcc): ") +
                 kInstallNvcc);
}

ToolLookup find_host_compiler() {
  for (const char* var : {"HONE_CXX", "CXX"}) {
    if (auto v = env(var)) {
      auto p = find_program(*v);
      if (!p) return missing(std::string("host compiler not found: ") + var + "=" + *v + " is not an executable");
      return found(*p);
    }
  }
  for (const char* name : {"g++", "c++"})
    if (auto p = find_program(name)) return found(*p);
  return missing("no host C++ compiler: install g++ (apt-get install g++) or set HONE_CXX");
}

std::optional<fs::path> find_cuobjdump(const fs::path& nvcc) {
  fs::path beside = nvcc.parent_path() / "cuobjdump";
  if (executable(beside)) return beside;
  if (auto p = find_program("cuobjdump")) return *p;
  if (executable("/usr/local/cuda/bin/cuobjdump")) return fs::path("/usr/local/cuda/bin/cuobjdump");
  return std::nullopt;
}

std::string tool_version(const fs::path& binary) {
  static std::mutex mu;
  static std::map<std::string, std::string> memory;
  const std::string key = fs::absolute(binary).string() + "|" + file_stamp(binary);
  {
    std::lock_guard lock(mu);
    if (auto it = memory.find(key); it != memory.end()) return it->second;
  }
  std::string version;
  if (auto memo = read_memo("tools", key); memo && memo->is_string()) {
    version = memo->get<std::string>();
  } else {
    auto r = run_process({.argv = {binary.string(), "--version"}, .timeout = std::chrono::seconds(30)});
    if (!r.ok())
      throw std::runtime_error(binary.string() + " --version failed (" + r.describe() + "): " + r.err.substr(0, 2000));
    version = version_line(binary, r.out);
    write_memo("tools", key, version);
  }
  std::lock_guard lock(mu);
  memory[key] = version;
  return version;
}

bool valid_arch(const std::string& arch) {
  static const std::regex re(R"(sm_[0-9]{2,3}[af]?)");
  return std::regex_match(arch, re);
}

std::optional<std::string> local_gpu_arch() {
  static std::mutex mu;
  static std::optional<std::optional<std::string>> memory;
  std::lock_guard lock(mu);
  if (memory) return *memory;
  auto smi = find_program("nvidia-smi");
  if (!smi) {
    memory.emplace(std::nullopt);
    return std::nullopt;
  }
  std::string boot;
  try {
    boot = read_file("/proc/sys/kernel/random/boot_id");
  } catch (const std::exception&) {
  }
  const std::string key = smi->string() + "|" + file_stamp(*smi) + "|" + boot + "|" + env("CUDA_VISIBLE_DEVICES").value_or("");
  if (auto memo = read_memo("gpu-arch-v2", key)) {
    memory.emplace(memo->is_string() ? std::optional<std::string>(memo->get<std::string>()) : std::nullopt);
    return *memory;
  }
  std::optional<std::string> arch;
  auto r = run_process({.argv = {smi->string(), "--query-gpu=compute_cap", "--format=csv,noheader"},
                        .timeout = std::chrono::seconds(20)});
  static const std::regex cap(R"((\d+)\.(\d+))");
  std::smatch m;
  if (r.ok() && std::regex_search(r.out, m, cap)) {
    arch = "sm_" + m[1].str() + m[2].str();
    // Hopper (9.0) gets its arch-specific target, sm_90a: a superset of sm_90 with wgmma and
    // setmaxnreg (tasks/attention's Hopper path); the build runs on this GPU only, as any is.
    if (*arch == "sm_90") *arch += "a";
  }
  // A failed query (driver trouble) is not remembered: the next call asks again.
  if (r.ok()) write_memo("gpu-arch-v2", key, arch ? nlohmann::json(*arch) : nlohmann::json(nullptr));
  memory.emplace(arch);
  return arch;
}

std::string resolve_arch(const std::optional<std::string>& requested) {
  if (requested && !requested->empty()) return *requested;
  return local_gpu_arch().value_or("sm_90");
}

}  // namespace hone::toolchain
