// eval/worker_launch.cpp: the eval worker's command line and scrubbed environment.
#include "eval/worker_launch.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "sandbox/environment.h"
#include "support/hash.h"

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
  for (const auto& [name, value] : launch.extra_env) (*spec.env)[name] = value;
  if (!launch.scratch_dir.empty()) std::filesystem::create_directories(launch.scratch_dir);
  return launch.wrap ? launch.wrap(std::move(spec)) : spec;
}

namespace {

nlohmann::json slot_spec(const CandidateLaunch& launch, std::vector<std::string> argv,
                         const std::filesystem::path& scratch) {
  std::filesystem::create_directories(scratch);
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = scratch;
  spec.env = worker_environment(current_environment(), launch.share_dir);
  if (!launch.harness.empty()) (*spec.env)["HONE_HARNESS_LIBRARY"] = launch.harness.string();
  const bool wrapped = static_cast<bool>(launch.wrap);
  if (wrapped) spec = launch.wrap(std::move(spec), scratch);
  return nlohmann::json{{"argv", spec.argv},
                        {"env", spec.env.value_or(std::map<std::string, std::string>{})},
                        {"cwd", spec.cwd.value_or(scratch).string()},
                        {"scratch", scratch.string()},
                        {"exit_code_carries_signal", wrapped && launch.exit_code_carries_signal},
                        {"address_space_bytes", wrapped ? 0 : launch.cpu_address_space_bytes}};
}

}  // namespace

nlohmann::json candidate_launch_specs(const CandidateLaunch& launch) {
  nlohmann::json specs{{"native", nlohmann::json::array()}, {"python", nlohmann::json::array()}};
  if (!launch.runner.empty())
    for (int k = 0; k < launch.native_slots; ++k)
      specs["native"].push_back(
          slot_spec(launch, {launch.runner.string()}, launch.scratch_root / ("native-" + std::to_string(k))));
  for (int k = 0; k < launch.python_slots; ++k)
    specs["python"].push_back(slot_spec(launch, {launch.python.string(), "-m", "hone_worker.runner"},
                                        launch.scratch_root / ("python-" + std::to_string(k))));
  return specs;
}

std::map<std::string, std::string> write_candidate_launch(const CandidateLaunch& launch,
                                                          const std::filesystem::path& file) {
  std::filesystem::create_directories(file.parent_path());
  write_file_atomic(file, candidate_launch_specs(launch).dump(1));
  std::filesystem::permissions(file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::map<std::string, std::string> env{{"HONE_CANDIDATE_LAUNCH", file.string()}};
  if (!launch.runner.empty()) env["HONE_RUNNER"] = launch.runner.string();
  if (!launch.harness.empty()) env["HONE_HARNESS_LIBRARY"] = launch.harness.string();
  return env;
}

}  // namespace hone::eval
