// toolchain/torch_env.cpp: probing interpreters for torch, with an on-disk cache.
#include "toolchain/torch_env.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "toolchain/disk_memo.h"

namespace hone::toolchain {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Prints one JSON line. Without torch it reports the folders whose change could bring torch in,
// so a negative answer can be cached too.
constexpr const char* kProbe = R"PY(
import importlib.util, json, os, re, runpy, site, sys
out = {"python": sys.executable, "python_version": sys.version.split()[0]}
spec = importlib.util.find_spec("torch")
if spec is None or spec.origin is None:
    dirs = [p for p in sys.path if p and os.path.isdir(p)]
    out["torch"] = None
    out["watch"] = {d: os.stat(d).st_mtime_ns for d in dirs}
else:
    # Importing torch takes seconds (its CUDA libraries load): read what is needed from its files,
    # importing it only without them. version.py has the versions; the ABI is in the
    # TorchConfig.cmake of older wheels, else in libc10.so's symbols (std::__cxx11 names or not).
    d = os.path.dirname(spec.origin)
    version, cuda, abi = None, None, None
    try:
        v = runpy.run_path(os.path.join(d, "version.py"))
        version, cuda = v["__version__"], v.get("cuda")
    except Exception:
        pass
    try:
        with open(os.path.join(d, "share", "cmake", "Torch", "TorchConfig.cmake")) as f:
            m = re.search(r"_GLIBCXX_USE_CXX11_ABI=([01])", f.read())
        abi = bool(int(m.group(1))) if m else None
    except Exception:
        pass
    if abi is None:
        try:
            import mmap
            with open(os.path.join(d, "lib", "libc10.so"), "rb") as f:
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                    abi = m.find(b"St7__cxx11") >= 0
        except Exception:
            pass
    if version is None or abi is None:
        import torch
        version, cuda, abi = torch.__version__, torch.version.cuda, bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    lib = os.path.join(d, "lib")
    out["torch"] = {
        "dir": d,
        "version": str(version),
        "cuda": cuda,
        "cxx11_abi": abi,
        "include": [os.path.join(d, "include"), os.path.join(d, "include", "torch", "csrc", "api", "include")],
        "lib": lib,
        "cuda_libs": all(os.path.exists(os.path.join(lib, n)) for n in ("libtorch_cuda.so", "libc10_cuda.so")),
    }
print(json.dumps(out))
)PY";

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::string memo_key(const fs::path& python) {
  return fs::absolute(python).lexically_normal().string() + "|" + file_stamp(python) + "|" + env("PYTHONPATH").value_or("") +
         "|" + env("PYTHONHOME").value_or("");
}

TorchEnv from_json_record(const fs::path& python, const json& j) {
  const json& t = j.at("torch");
  TorchEnv e;
  e.python = python;
  e.python_version = j.value("python_version", "");
  e.torch_dir = t.at("dir").get<std::string>();
  e.version = t.at("version").get<std::string>();
  if (!t.at("cuda").is_null()) e.cuda = t.at("cuda").get<std::string>();
  e.cxx11_abi = t.at("cxx11_abi").get<bool>();
  for (const auto& d : t.at("include")) e.include_dirs.emplace_back(d.get<std::string>());
  e.library_dir = t.at("lib").get<std::string>();
  e.has_cuda_libraries = t.at("cuda_libs").get<bool>();
  return e;
}

// A cached record is still true while the files it was derived from are unchanged.
bool still_valid(const json& record) {
  if (record.at("torch").is_null()) {
    for (const auto& [dir, mtime] : record.at("watch").items())
      if (mtime_ns(dir) != mtime.get<long long>()) return false;
    return true;
  }
  return record.value("version_py_stamp", "") == file_stamp(fs::path(record.at("torch").at("dir").get<std::string>()) / "version.py");
}

// nullopt + why, or the interpreter's record (with or without torch).
std::optional<json> probe(const fs::path& python, std::string& why) {
  const std::string key = memo_key(python);
  if (auto memo = read_memo("torch-env", key)) {
    try {
      if (still_valid(*memo)) return memo;
    } catch (const std::exception&) {
    }
  }
  auto r = run_process({.argv = {python.string(), "-c", kProbe}, .timeout = std::chrono::seconds(120)});
  if (!r.ok()) {
    std::string err = r.err.size() > 1500 ? r.err.substr(r.err.size() - 1500) : r.err;
    why = python.string() + ": " + r.describe() + (err.empty() ? "" : ": " + err);
    return std::nullopt;
  }
  json record;
  try {
    // The probe's JSON is its last line (importing torch may print before it).
    std::string out = r.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    const auto nl = out.rfind('\n');
    record = json::parse(nl == std::string::npos ? out : out.substr(nl + 1));
  } catch (const std::exception&) {
    why = python.string() + ": unreadable probe output: " + r.out.substr(0, 500);
    return std::nullopt;
  }
  if (!record.at("torch").is_null())
    record["version_py_stamp"] = file_stamp(fs::path(record["torch"]["dir"].get<std::string>()) / "version.py");
  write_memo("torch-env", key, record);
  return record;
}

}  // namespace

TorchEnvLookup find_torch_env(const std::optional<fs::path>& python) {
  TorchEnvLookup result;
  std::vector<fs::path> candidates;
  bool explicit_choice = false;
  if (python) {
    candidates.push_back(*python);
    explicit_choice = true;
  } else if (auto v = env("HONE_PYTHON")) {
    candidates.emplace_back(*v);
    explicit_choice = true;
  } else {
    for (const char* name : {"python3", "/usr/bin/python3", "python"})
      if (auto p = find_program(name)) candidates.push_back(*p);
  }
  std::vector<std::string> tried;
  for (const auto& candidate : candidates) {
    auto resolved = find_program(candidate.string());
    if (!resolved) {
      tried.push_back(candidate.string() + ": not found or not executable");
      continue;
    }
    std::string why;
    auto record = probe(*resolved, why);
    if (!record) {
      tried.push_back(why);
      continue;
    }
    if (record->at("torch").is_null()) {
      tried.push_back(resolved->string() + ": no torch module");
      continue;
    }
    result.env = from_json_record(*resolved, *record);
    return result;
  }
  std::string list;
  for (const auto& t : tried) list += "\n  " + t;
  result.error = std::string("no Python interpreter that imports torch") +
                 (explicit_choice ? "" : " (searched python3 on PATH, /usr/bin/python3, python on PATH)") + ":" +
                 (list.empty() ? "\n  no interpreter found" : list) +
                 "\nthe torch form needs one: pass --python or set HONE_PYTHON (the raw form needs no torch)";
  return result;
}

}  // namespace hone::toolchain
