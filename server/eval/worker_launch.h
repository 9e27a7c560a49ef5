// eval/worker_launch.h: the command line and environment of an eval worker (`python -m hone_worker`
// with hone's share/worker on PYTHONPATH, a scrubbed environment, glibc's MALLOC_PERTURB_ so freed
// memory reads as garbage), and the hook through which the sandbox confines it. Called by the
// engine when it creates a worker slot; pure functions, any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "support/subprocess.h"

namespace hone::eval {

struct WorkerLaunch {
  std::filesystem::path python;      // an interpreter that imports torch
  std::filesystem::path share_dir;   // hone's share folder (the worker lives in share/worker)
  std::filesystem::path scratch_dir; // the worker's working directory (created if missing)
  // Wraps the command (the sandbox's confinement); empty: run it as is.
  std::function<ProcessSpec(ProcessSpec)> wrap;
};

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
