// eval/worker_launch.h: the command line and environment of an eval worker, the judge (`python -m
// hone_worker` with hone's share/worker on PYTHONPATH and a scrubbed environment, unconfined: it
// never loads candidate code), and the launch specs of its candidate processes (the native runner
// hone-runner and the python runner, K pool slots each, every slot confined by the sandbox with a
// scratch folder of its own), which the judge reads from $HONE_CANDIDATE_LAUNCH. Called by the
// engine when it creates a worker slot; pure functions (write_candidate_launch writes its file),
// any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"

namespace hone::eval {

struct WorkerLaunch {
  std::filesystem::path python;      // an interpreter that imports torch
  std::filesystem::path share_dir;   // hone's share folder (the worker lives in share/worker)
  std::filesystem::path scratch_dir; // the worker's working directory (created if missing)
  // Wraps the command (the sandbox's confinement); empty: run it as is.
  std::function<ProcessSpec(ProcessSpec)> wrap;
  // Variables added to the worker's environment ($HONE_CANDIDATE_LAUNCH, $HONE_RUNNER, ...).
  std::map<std::string, std::string> extra_env;
};

// How the judge's candidate processes are started (protocol/WORKER.md, "Launch").
struct CandidateLaunch {
  std::filesystem::path python;       // the python runner's interpreter (the judge's)
  std::filesystem::path share_dir;    // hone's share folder (the python runner lives in share/worker)
  std::filesystem::path runner;       // hone-runner; empty: no native runner
  std::filesystem::path harness;      // libhone_harness.so (its flush, hold, spin and marker kernels)
  std::filesystem::path scratch_root; // one scratch folder per slot under it: native-0, python-1, ...
  int native_slots = 2;
  int python_slots = 3;
  // Confines one slot's command with that slot's scratch folder as its only writable folder;
  // empty: the commands run unwrapped (--no-sandbox).
  std::function<ProcessSpec(ProcessSpec, const std::filesystem::path& scratch)> wrap;
  bool exit_code_carries_signal = false;  // the wrapper reports a child killed by signal N as 128+N
  std::uint64_t cpu_address_space_bytes = 0;  // RLIMIT_AS the judge sets on an unwrapped CPU candidate
};

// {"native": [SPEC...], "python": [SPEC...]}, SPEC = {"argv", "env", "cwd", "scratch",
// "exit_code_carries_signal", "address_space_bytes"}; creates the scratch folders.
nlohmann::json candidate_launch_specs(const CandidateLaunch& launch);

// Writes the specs to `file` (mode 0600: they hold the candidates' whole environment) and returns
// the judge's variables: HONE_CANDIDATE_LAUNCH, HONE_RUNNER (when there is one), HONE_HARNESS_LIBRARY.
std::map<std::string, std::string> write_candidate_launch(const CandidateLaunch& launch,
                                                          const std::filesystem::path& file);

// The byte glibc writes over freed (and fresh malloc'd) memory in the worker, so an output buffer
// a CPU candidate never wrote does not read as the reference's stale result.
inline constexpr int kMallocPerturbByte = 0xA5;

// The worker's environment: the parent's variables that Python, torch and CUDA need (PATH, HOME,
// LANG, CUDA_*, TORCH*, ...), never a secret (sandbox::is_secret_name, the rule candidates get),
// plus PYTHONPATH, PYTHONUNBUFFERED and MALLOC_PERTURB_.
std::map<std::string, std::string> worker_environment(const std::map<std::string, std::string>& parent,
                                                      const std::filesystem::path& share_dir);

// The full process description (after `wrap`).
ProcessSpec worker_process_spec(const WorkerLaunch& launch);

}  // namespace hone::eval
