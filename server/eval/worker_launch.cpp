// eval/worker_launch.cpp: the eval worker's command line and scrubbed environment.
#include "eval/worker_launch.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "sandbox/environment.h"

namespace hone::eval {
namespace {

// Variables passed through by exact name.
constexpr std::array<std::string_view, 16> kKeep{
    "PATH",     "HOME",           "USER",           "LOGNAME",       "LANG",         "LC_ALL",
    "LC_CTYPE", "TMPDIR",         "TZ",             "LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX",
    "XDG_CACHE_HOME", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONHOME"};

// Variables passed through by prefix: CUDA and the NVIDIA driver, torch and its compilers.
constexpr std::array<std::string_view, 6> kKeepPrefixes{"CUDA_", "NVIDIA_", "TORCH", "TRITON_", "CUBLAS", "HONE_"};

}  // namespace

std::map<std::string, std::string> worker_environment(const std::map<std::string, std::string>& parent,
                                                      const std::filesystem::path& share_dir) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : parent) {
    if (sandbox::is_secret_name(name)) continue;
    bool keep = std::find(kKeep.begin(), kKeep.end(), name) != kKeep.end() ||
                std::any_of(kKeepPrefixes.begin(), kKeepPrefixes.end(),
                            [&](std::string_view p) { return std::string_view(name).starts_with(p); });
    if (keep) env[name] = value;
  }
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  env["PYTHONPATH"] = (share_dir / "worker").string();
  env["PYTHONUNBUFFERED"] = "1";
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  env["MALLOC_PERTURB_"] = std::to_string(kMallocPerturbByte);
  // torch.compile's default pool of compile processes starts in the background and loads every
  // core for seconds after the first compile, while candidates and baselines are being timed.
  if (!env.count("TORCHINDUCTOR_COMPILE_THREADS")) env["TORCHINDUCTOR_COMPILE_THREADS"] = "1";
  return env;
}

ProcessSpec worker_process_spec(const WorkerLaunch& launch) {
  ProcessSpec spec;
  spec.argv = {launch.python.string(), "-m", "hone_worker"};
  spec.cwd = launch.scratch_dir;
  spec.env = worker_environment(current_environment(), launch.share_dir);
  if (!launch.scratch_dir.empty()) std::filesystem::create_directories(launch.scratch_dir);
  return launch.wrap ? launch.wrap(std::move(spec)) : spec;
}

}  // namespace hone::eval
