// protocol/verdict.h: the Verdict, one immutable result of checking a kernel against its
// reference, as C++ structs spelled like protocol/schema/verdict.schema.json (the one definition
// of its JSON shape), with to_json/from_json. Built by the eval client and the engine; read by
// the CLI, the language server, the optimizer and the store, from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/build_report.h"
#include "protocol/profile_report.h"

namespace hone::protocol {

enum class Status { Correct, Incorrect, CompileError, RuntimeError, Timeout, Rejected };

std::string_view to_string(Status status);  // "correct", "compile_error", ...
std::optional<Status> parse_status(std::string_view text);

struct TensorSpec {
  std::string name;
  std::string kind;  // "tensor" | "int" | "float" | "bool"
  std::optional<std::string> dtype;
  std::vector<std::int64_t> shape;
};

struct Signature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> params;
  std::vector<TensorSpec> outputs;
  std::string torch;  // the expected torch-form declaration
  std::string raw;    // the expected raw-form declaration
};

struct Mismatch {
  std::optional<int> output;
  std::vector<std::int64_t> index;
  nlohmann::json got;       // number, string ("nan") or null
  nlohmann::json expected;
  std::optional<std::int64_t> count;  // elements that fail as `kind` says
  std::optional<std::string> kind;    // "unwritten", "nonfinite" or "tolerance"
};

struct Trial {
  std::int64_t seed = 0;
  bool passed = false;
  std::optional<double> max_abs_error;
  std::optional<double> max_rel_error;
  std::optional<Mismatch> mismatch;
};

struct Correctness {
  double atol = 0;
  double rtol = 0;
  std::vector<Trial> trials;
  std::map<std::string, bool> checks;  // inputs_unchanged, unwritten_output, determinism, ...
};

// One measured time of a call (issue 14): its percentiles over the timed calls. Device time is the
// GPU time of the work a call launched (CUDA events around calls enqueued behind a held stream,
// free of host jitter; the CPU's host clock on the CPU, where it equals the call time); call
// time is CUDA events (or the host clock) around each call with the device idle and the cache
// flushed before it, as KernelBench measures.
struct TimeSummary {
  double p50_us = 0;
  double p10_us = 0;
  double p90_us = 0;
  std::int64_t reps = 0;
  std::string method;
  std::optional<double> p50_low_us;   // the median's 95% confidence interval (order statistics)
  std::optional<double> p50_high_us;
  std::vector<double> samples_us;     // in the order the calls ran, where HONE_TIMING_SAMPLES asked for them
  std::optional<std::int64_t> calls_per_sample;  // each sample the mean of this many calls (counted device time)
  double spread() const { return p50_us > 0 ? (p90_us - p10_us) / p50_us : 0.0; }  // (p90 - p10) / p50
  // The width of the median's interval over the median, when the worker sent one.
  std::optional<double> p50_interval() const {
    if (!p50_low_us || !p50_high_us || p50_us <= 0) return std::nullopt;
    return (*p50_high_us - *p50_low_us) / p50_us;
  }
};

// The spread ((p90 - p10) / p50) above which a time is noisy: never a point speedup, never cached
// as a baseline (the worker's NOISY_SPREAD).
inline constexpr double kNoisySpread = 0.2;

// One kernel of a call, as the kernel counters count it (each after a flush, as ncu does): its
// median over the counted calls. The call's kernels in launch order make its device time's parts.
struct CountedKernel {
  std::string name;  // the kernel's (mangled or demangled as CUDA names it); "" where unknown
  double p50_us = 0;
};

struct Timing {
  double p50_us = 0;
  double p10_us = 0;
  double p90_us = 0;
  std::optional<double> mean_us;
  std::optional<double> min_us;
  std::optional<double> max_us;
  std::int64_t reps = 0;
  std::optional<std::int64_t> warmup;
  std::string method;  // "cuda_events_l2_flush" | "host_clock"
  std::optional<std::int64_t> spot_checks;
  std::optional<TimeSummary> call;    // call time (the top-level percentiles are the call time's too)
  std::optional<TimeSummary> device;  // device time (absent in verdicts from before issue 14)
  std::optional<TimeSummary> device_records;  // counted device time: the activity records' busy time beside it
  std::optional<TimeSummary> device_per_call;  // counted device time averaged over calls: the calls one by one
  std::optional<std::string> kernel_counters_note;  // counters asked for, not used: why (records or events stay)
  std::vector<CountedKernel> device_kernels;  // counted device time: each kernel of a call, in launch order
  std::optional<double> settle_ms;    // warm-up of the clocks until successive windows agreed
};

// The time speedups divide (device time when the timing has one, else call time) and its name.
TimeSummary basis_time(const Timing& t);
std::string_view basis_name(const Timing& t);  // "device" | "call"
// The call time (timing.call, else the top-level percentiles).
TimeSummary call_time(const Timing& t);

struct Baselines {
  std::optional<Timing> eager;
  std::optional<Timing> compile;      // written as null when compile_measured is false
  bool compile_measured = false;      // false: torch.compile unavailable or not run
};

// The reference's own timing in one mode ("eager" | "compile"), as the baselines of a verdict and
// `hone task --time` report it.
struct ReferenceTiming {
  std::optional<Timing> timing;  // nullopt: the mode cannot be timed here (see unavailable)
  std::string unavailable;       // why (torch.compile on torch < 2, a reference that failed to compile)
  std::string noisy;             // set when the timing was noisy twice (a busy machine): shown, measured again later
};

// A speedup known only to lie between low and high: either side's time was noisy.
struct SpeedupRange {
  double low = 0;
  double high = 0;
};

// Speedups over the reference (reference time / kernel time). A point (eager, compile) only when
// both sides' times are quiet (spread <= kNoisySpread); otherwise the range from both sides'
// p10..p90 (reference p10 / kernel p90 .. reference p90 / kernel p10). `basis` names the time
// they divide; call_* are the same by call time when the basis is device time.
struct Speedup {
  std::optional<double> eager;
  std::optional<double> compile;
  std::optional<SpeedupRange> eager_range;
  std::optional<SpeedupRange> compile_range;
  std::string basis;  // "device" | "call" (empty: a verdict from before issue 14)
  std::optional<double> call_eager;
  std::optional<double> call_compile;
  std::optional<SpeedupRange> call_eager_range;
  std::optional<SpeedupRange> call_compile_range;
  bool by_call = false;  // whether the call_* fields were computed (written as "call")
};

// reference / kernel as a speedup, as Speedup says: `point` when both times are quiet and the
// reference is not `flagged` noisy, else `range` from both sides' p10..p90; neither when a time
// is missing. The one definition for speedups over baselines and over the original kernel.
void divide_times(const TimeSummary& reference, const TimeSummary& kernel, bool flagged, std::optional<double>& point,
                  std::optional<SpeedupRange>& range);

struct Floor {
  double bytes = 0;
  double peak_dram_bytes_per_s = 0;
  double floor_us = 0;
};

struct KernelRecord {
  std::string name;
  double duration_us = 0;
  bool own = false;
  std::optional<std::int64_t> stream;
  std::vector<std::int64_t> grid;
  std::vector<std::int64_t> block;
  std::optional<std::int64_t> registers;
  std::optional<std::int64_t> shared_bytes;
};

struct KernelTime {
  std::optional<double> own_us;
  std::optional<double> library_us;
  std::optional<double> own_share;
  std::vector<KernelRecord> kernels;
};

struct Flag {
  std::string id;  // weak_task, constant_output, library_ops, speedup_over_10x, no_sandbox, ...
  std::string message;
};

// A KernelBench answer file (kernel.form "modelnew", issue 15): how ModelNew was built, whether
// its parameters equal Model's, and hone's builds of its load_inline calls.
struct AnswerFacts {
  std::string initialised;          // "Model and ModelNew each built after seeding ... with 42 ..."
  std::string parameters;  // "match", or why ModelNew's state_dict() differs from Model's; "": not compared
  std::vector<std::string> extensions;  // the load_inline names hone built
  bool triton = false;                  // the answer uses Triton
};

struct Evidence {
  std::optional<std::string> signal;  // "SIGSEGV"
  std::optional<int> exit_code;
  std::optional<std::string> cuda_error;
  std::vector<std::string> stderr_tail;
  std::optional<std::string> traceback;
  std::optional<int> oom_kills;  // died of SIGKILL: how much /proc/vmstat's oom_kill rose while it ran
  bool empty() const { return !signal && !exit_code && !cuda_error && stderr_tail.empty() && !traceback && !oom_kills; }
};

struct KernelRef {
  std::string path;
  std::string hash;
  std::string form = "unknown";  // "raw" | "torch" | "modelnew" (a KernelBench answer) | "unknown"
  std::string language;          // "cuda" | "cpp"
};

struct TaskRef {
  std::string path;
  std::string hash;
  std::optional<std::string> name;
};

struct DeviceRef {
  std::string kind;  // "cuda" | "cpu"
  std::string name;
  std::optional<int> index;
  std::optional<std::string> arch;
  std::optional<std::string> uuid;  // the GPU's UUID ("GPU-..."), so a pool's GPUs are told apart
};

// Where the check ran when not in this process's own worker pool: the Slurm job that ran it.
struct ExecutorFacts {
  std::string kind;                   // "slurm"
  std::optional<std::string> job_id;  // the Slurm job id
  std::optional<std::string> node;    // the node it ran on
  int attempts = 1;                   // jobs it took (a cancelled or preempted job is retried)
};

struct ToolchainVersions {
  std::optional<std::string> nvcc;
  std::optional<std::string> host_compiler;
  std::optional<std::string> torch;
  std::optional<std::string> python;
};

struct SandboxFacts {
  std::string mode = "none";  // "bwrap" | "namespaces" | "none"
  bool explicitly_disabled = false;
  std::optional<std::string> warning;
};

struct Verdict {
  static constexpr int kSchemaVersion = 1;
  Status status = Status::RuntimeError;
  std::optional<std::string> reason;  // required unless correct
  KernelRef kernel;
  TaskRef task;
  DeviceRef device;
  std::optional<ToolchainVersions> toolchain;
  SandboxFacts sandbox;
  CompileReport compile;
  std::optional<Signature> signature;
  std::optional<Correctness> correctness;
  std::optional<Timing> timing;
  std::optional<Baselines> baselines;
  std::optional<Speedup> speedup;
  std::optional<Floor> floor;
  std::optional<KernelTime> kernel_time;
  std::vector<Flag> flags;
  std::optional<Evidence> evidence;
  std::optional<AnswerFacts> answer;      // a KernelBench answer file
  std::optional<ProfileReport> profile;   // added by hone profile
  std::map<std::string, double> seconds;  // wall time of each stage
  std::optional<std::string> created_at;  // ISO 8601 UTC
  std::optional<ExecutorFacts> executor; // set when a cluster executor (Slurm) ran the check

  bool has_flag(std::string_view id) const;
};

void to_json(nlohmann::json& j, const TensorSpec& v);
void from_json(const nlohmann::json& j, TensorSpec& v);
void to_json(nlohmann::json& j, const Signature& v);
void from_json(const nlohmann::json& j, Signature& v);
void to_json(nlohmann::json& j, const Mismatch& v);
void from_json(const nlohmann::json& j, Mismatch& v);
void to_json(nlohmann::json& j, const Trial& v);
void from_json(const nlohmann::json& j, Trial& v);
void to_json(nlohmann::json& j, const Correctness& v);
void from_json(const nlohmann::json& j, Correctness& v);
void to_json(nlohmann::json& j, const CountedKernel& v);
void from_json(const nlohmann::json& j, CountedKernel& v);
void to_json(nlohmann::json& j, const TimeSummary& v);
void from_json(const nlohmann::json& j, TimeSummary& v);
void to_json(nlohmann::json& j, const SpeedupRange& v);
void from_json(const nlohmann::json& j, SpeedupRange& v);
void to_json(nlohmann::json& j, const Timing& v);
void from_json(const nlohmann::json& j, Timing& v);
void to_json(nlohmann::json& j, const Baselines& v);
void from_json(const nlohmann::json& j, Baselines& v);
void to_json(nlohmann::json& j, const Speedup& v);
void from_json(const nlohmann::json& j, Speedup& v);
void to_json(nlohmann::json& j, const Floor& v);
void from_json(const nlohmann::json& j, Floor& v);
void to_json(nlohmann::json& j, const KernelRecord& v);
void from_json(const nlohmann::json& j, KernelRecord& v);
void to_json(nlohmann::json& j, const KernelTime& v);
void from_json(const nlohmann::json& j, KernelTime& v);
void to_json(nlohmann::json& j, const Flag& v);
void from_json(const nlohmann::json& j, Flag& v);
void to_json(nlohmann::json& j, const AnswerFacts& v);
void from_json(const nlohmann::json& j, AnswerFacts& v);
void to_json(nlohmann::json& j, const Evidence& v);
void from_json(const nlohmann::json& j, Evidence& v);
void to_json(nlohmann::json& j, const KernelRef& v);
void from_json(const nlohmann::json& j, KernelRef& v);
void to_json(nlohmann::json& j, const TaskRef& v);
void from_json(const nlohmann::json& j, TaskRef& v);
void to_json(nlohmann::json& j, const DeviceRef& v);
void to_json(nlohmann::json& j, const ExecutorFacts& v);
void from_json(const nlohmann::json& j, ExecutorFacts& v);
void from_json(const nlohmann::json& j, DeviceRef& v);
void to_json(nlohmann::json& j, const ToolchainVersions& v);
void from_json(const nlohmann::json& j, ToolchainVersions& v);
void to_json(nlohmann::json& j, const SandboxFacts& v);
void from_json(const nlohmann::json& j, SandboxFacts& v);
void to_json(nlohmann::json& j, const Verdict& v);
void from_json(const nlohmann::json& j, Verdict& v);

}  // namespace hone::protocol
