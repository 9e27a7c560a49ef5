// sandbox/policy.cpp: what confined builds and runs may read: system folders, compiler roots,
// a Python interpreter's folders, and the ready-made build and run policies.
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sandbox/sandbox.h"

namespace hone::sandbox {
namespace {

namespace fs = std::filesystem;

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found && !ec;
}

std::uint64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 16ull << 30;
}

// Prints the interpreter's own folders as a JSON list. -E: PYTHONPATH and PYTHONHOME of hone's
// environment are not the worker's. The script's folder ('' for -c) is left out.
constexpr const char* kPythonPathsScript = R"(
import json, os, sys, sysconfig
c = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
     os.path.dirname(os.path.abspath(sys.executable)), os.path.dirname(os.path.realpath(sys.executable))]
c += [p for p in sys.path if p] + list(sysconfig.get_paths().values())
print(json.dumps(sorted({os.path.abspath(p) for p in c if p and os.path.exists(p)})))
)";

}  // namespace

std::vector<fs::path> system_read_paths() {
  static const std::vector<fs::path> paths = [] {
    std::vector<fs::path> out;
    // /sys only where devices are described (CUDA and torch look there); its many submounts
    // (cgroups, debugfs, tracing, security) stay out, which also saves bwrap ~15 ms a start.
    for (const char* p : {"/usr",
                          "/bin",
                          "/sbin",
                          "/lib",
                          "/lib32",
                          "/lib64",
                          "/libx32",
                          "/sys/devices",
                          "/sys/bus",
                          "/sys/class",
                          "/sys/dev",
                          "/sys/module",
                          "/etc/ld.so.cache",
                          "/etc/ld.so.conf",
                          "/etc/ld.so.conf.d",
                          "/etc/alternatives",
                          "/etc/passwd",
                          "/etc/group",
                          "/etc/nsswitch.conf",
                          "/etc/localtime",
                          "/etc/os-release",
                          "/etc/mime.types"})
      if (exists_no_follow(p)) out.emplace_back(p);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/etc", ec))
      if (entry.path().filename().string().starts_with("python") && entry.is_directory()) out.push_back(entry.path());
    return out;
  }();
  return paths;
}

fs::path compiler_root(const fs::path& compiler) {
  fs::path exe = compiler;
  if (!exe.is_absolute()) {
    auto found = find_program(compiler.string());
    if (!found) throw std::invalid_argument("sandbox: compiler not found on PATH: " + compiler.string());
    exe = *found;
  }
  fs::path bin = exe.parent_path();
  fs::path root = bin.parent_path();
  return root.empty() || root == "/" ? bin : root;
}

std::vector<fs::path> python_read_paths(const fs::path& python) {
  static std::mutex mutex;
  static std::map<fs::path, std::vector<fs::path>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(python); it != cache.end()) return it->second;
  ProcessSpec spec;
  spec.argv = {python.string(), "-E", "-c", kPythonPathsScript};
  spec.cwd = "/";
  spec.timeout = std::chrono::seconds(30);
  ProcessResult r = run_process(spec);
  if (!r.ok())
    throw std::runtime_error("sandbox: could not ask " + python.string() + " for its folders (" + r.describe() +
                             "): " + r.err);
  std::vector<fs::path> paths;
  try {
    for (const auto& p : nlohmann::json::parse(r.out)) paths.emplace_back(p.get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("sandbox: unexpected answer from " + python.string() + ": " + r.out);
  }
  fs::path exe = python.is_absolute() ? python : find_program(python.string()).value_or(python);
  paths.push_back(exe);
  cache[python] = paths;
  return paths;
}

namespace {

// What every build gets: `out_dir` writable, the toolchain readable, and the build limits.
SandboxPolicy base_build_policy(const fs::path& out_dir, const std::vector<fs::path>& toolchain_paths) {
  SandboxPolicy policy;
  policy.scratch = out_dir;
  policy.read_only = toolchain_paths;
  policy.limits.cpu_seconds = 600;
  policy.limits.address_space_bytes = 16ull << 30;
  policy.limits.processes = 256;
  policy.limits.open_files = 1024;
  policy.limits.file_size_bytes = 4ull << 30;
  policy.limits.tmp_bytes = 1ull << 30;
  return policy;
}

}  // namespace

SandboxPolicy build_policy(const fs::path& kernel_dir, const fs::path& out_dir,
                           const std::vector<fs::path>& toolchain_paths) {
  SandboxPolicy policy = base_build_policy(out_dir, toolchain_paths);
  policy.read_only.insert(policy.read_only.begin(), kernel_dir);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kernel_dir, ec))
    if (entry.path().filename().string().starts_with(".") && entry.path() != out_dir)
      policy.hidden.push_back(entry.path());
  return policy;
}

SandboxPolicy staged_build_policy(const fs::path& kernel_dir, const fs::path& staged,
                                  const std::vector<fs::path>& relative_files, const fs::path& out_dir,
                                  const std::vector<fs::path>& toolchain_paths) {
  SandboxPolicy policy = base_build_policy(out_dir, toolchain_paths);
  for (const auto& rel : relative_files) {
    const bool climbs = std::any_of(rel.begin(), rel.end(), [](const fs::path& part) { return part == ".."; });
    if (rel.empty() || rel.is_absolute() || climbs)
      throw std::invalid_argument("sandbox policy: not a path inside the kernel's folder: " + rel.string());
    policy.read_only_at.push_back({staged / rel, kernel_dir / rel});
  }
  return policy;
}

SandboxPolicy run_policy(const fs::path& scratch, const std::vector<fs::path>& read_paths, bool gpu) {
  SandboxPolicy policy;
  policy.scratch = scratch;
  policy.read_only = read_paths;
  policy.gpu = gpu;
  policy.limits.address_space_bytes = gpu ? 0 : physical_memory_bytes();
  policy.limits.processes = 2048;
  policy.limits.open_files = 4096;
  policy.limits.file_size_bytes = 8ull << 30;
  policy.limits.tmp_bytes = 2ull << 30;
  return policy;
}

}  // namespace hone::sandbox
