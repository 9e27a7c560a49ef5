// eval/evaluator.h: the verification pipeline on one device's worker: the worker's check (seeds,
// correctness, timing), then the eval client's own stages: the physical floor, baselines (cached
// on disk), speedups, and the re-check with more seeds of a speedup over 10x. Called by the engine
// from any thread; the slot serialises the worker requests.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "eval/baseline_cache.h"
#include "eval/worker_slot.h"
#include "eval/worker_verdict.h"
#include "protocol/device.h"
#include "protocol/verdict.h"

namespace hone::eval {

// A built kernel, as the worker loads it.
struct KernelArtifact {
  std::filesystem::path library;
  std::string form;          // "raw" | "torch"
  std::string op_namespace;  // torch form
  std::vector<std::string> own_kernels;
  nlohmann::json extra = nlohmann::json::object();  // more fields of the judge's `kernel` (modelnew: modules)
  std::vector<std::string> tamper_signs;  // the build's (toolchain/tamper_signs.h): the judge names them
};

struct EvalRequest {
  std::filesystem::path task;  // the staged copy the worker loads
  std::string task_hash;       // sha256 of the task file: the baseline cache key
  protocol::Device device = protocol::Device::cpu();
  KernelArtifact kernel;
  int seeds = 3;
  std::optional<double> atol;
  std::optional<double> rtol;
  bool timing = true;
  bool baselines = true;
  bool compile_baseline = true;
  bool remeasure_noisy_baselines = true;  // false: a cached noisy baseline is used (flagged) as it is
  std::chrono::milliseconds deadline{0};  // one worker request: the engine's check_timeout
};

// What the device is, for the cache key and the floor.
struct DeviceContext {
  std::string name;           // "NVIDIA H200" or the CPU's model name
  std::string torch_version;
  std::optional<double> peak_dram_bytes_per_s;  // nullopt: no floor (the CPU, an unknown GPU)
};

// The judge's part of a verdict, and what it found besides.
struct EvalResult {
  // status, reason, signature, correctness, timing, kernel_time, flags, evidence, floor,
  // baselines, speedup and seconds; the engine adds what the kernel, task and device are.
  protocol::Verdict verdict;
  bool kernel_mismatch = false;  // the worker refused the library (signature or ABI): a compile_error
  bool rechecked = false;        // a speedup over 10x was re-verified
  // The judge itself failed during the check (it died, or its CUDA context became unusable): the
  // device is suspect, the verdict says nothing about the kernel. A pool retires the device.
  std::optional<std::string> judge_lost;
};

// Throws TaskError, WorkerFailure, Cancelled, WorkerStartError.
EvalResult run_check(WorkerSlot& slot, const BaselineCache& cache, const EvalRequest& request,
                     const DeviceContext& device, std::stop_token stop, const ProgressSink& progress);

// (p90 - p10) / p50 above which a timing is noisy (the worker's NOISY_SPREAD).
inline constexpr double kNoisySpread = protocol::kNoisySpread;

// The reference's timing in one mode ("eager" | "compile"), from the cache or measured (and
// cached); no timing, and why, when the mode cannot be timed here. A timing that stayed noisy
// after the worker measured it again (a busy machine) says so and is never cached: the next call
// measures it afresh. Throws TaskError when the reference cannot run eagerly.
protocol::ReferenceTiming reference_timing(WorkerSlot& slot, const BaselineCache& cache, const EvalRequest& request,
                                           const DeviceContext& device, const std::string& mode, std::stop_token stop,
                                           const ProgressSink& progress);

// `count` fresh random seeds (never 0).
std::vector<std::int64_t> fresh_seeds(int count);

}  // namespace hone::eval
