// protocol/verdict.cpp: JSON conversion of the Verdict (shape: protocol/schema/verdict.schema.json).
#include "protocol/verdict.h"

#include <algorithm>
#include <array>
#include <utility>

namespace hone::protocol {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<Status, std::string_view>, 6> kStatusNames{{
    {Status::Correct, "correct"},
    {Status::Incorrect, "incorrect"},
    {Status::CompileError, "compile_error"},
    {Status::RuntimeError, "runtime_error"},
    {Status::Timeout, "timeout"},
    {Status::Rejected, "rejected"},
}};

template <class T>
void put(json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

template <class T>
void get(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

template <class T>
void get(const json& j, const char* key, std::optional<T>& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) out = it->get<T>();
}

// Reads a field the schema requires; names the field when it is missing.
template <class T>
void need(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) throw std::runtime_error(std::string("verdict: missing field '") + key + "'");
  it->get_to(out);
}

}  // namespace

std::string_view to_string(Status status) {
  for (const auto& [s, name] : kStatusNames)
    if (s == status) return name;
  return "runtime_error";
}

std::optional<Status> parse_status(std::string_view text) {
  for (const auto& [s, name] : kStatusNames)
    if (name == text) return s;
  return std::nullopt;
}

bool Verdict::has_flag(std::string_view id) const {
  return std::any_of(flags.begin(), flags.end(), [&](const Flag& f) { return f.id == id; });
}

void to_json(json& j, const TensorSpec& v) {
  j = json{{"name", v.name}, {"kind", v.kind}};
  put(j, "dtype", v.dtype);
  if (v.kind == "tensor" || !v.shape.empty()) j["shape"] = v.shape;
}
void from_json(const json& j, TensorSpec& v) {
  need(j, "name", v.name);
  need(j, "kind", v.kind);
  get(j, "dtype", v.dtype);
  get(j, "shape", v.shape);
}

void to_json(json& j, const Signature& v) {
  j = json{{"inputs", v.inputs}, {"params", v.params}, {"outputs", v.outputs}};
  if (!v.torch.empty()) j["torch"] = v.torch;
  if (!v.raw.empty()) j["raw"] = v.raw;
}
void from_json(const json& j, Signature& v) {
  get(j, "inputs", v.inputs);
  get(j, "params", v.params);
  get(j, "outputs", v.outputs);
  get(j, "torch", v.torch);
  get(j, "raw", v.raw);
}

void to_json(json& j, const Mismatch& v) {
  j = json::object();
  put(j, "output", v.output);
  if (!v.index.empty()) j["index"] = v.index;
  j["got"] = v.got;
  j["expected"] = v.expected;
  put(j, "count", v.count);
  put(j, "kind", v.kind);
}
void from_json(const json& j, Mismatch& v) {
  get(j, "output", v.output);
  get(j, "index", v.index);
  if (auto it = j.find("got"); it != j.end()) v.got = *it;
  if (auto it = j.find("expected"); it != j.end()) v.expected = *it;
  get(j, "count", v.count);
  get(j, "kind", v.kind);
}

void to_json(json& j, const Trial& v) {
  j = json{{"seed", v.seed}, {"passed", v.passed}};
  j["max_abs_error"] = v.max_abs_error ? json(*v.max_abs_error) : json(nullptr);
  j["max_rel_error"] = v.max_rel_error ? json(*v.max_rel_error) : json(nullptr);
  put(j, "mismatch", v.mismatch);
}
void from_json(const json& j, Trial& v) {
  need(j, "seed", v.seed);
  need(j, "passed", v.passed);
  get(j, "max_abs_error", v.max_abs_error);
  get(j, "max_rel_error", v.max_rel_error);
  get(j, "mismatch", v.mismatch);
}

void to_json(json& j, const Correctness& v) {
  j = json{{"atol", v.atol}, {"rtol", v.rtol}, {"trials", v.trials}};
  if (!v.checks.empty()) j["checks"] = v.checks;
}
void from_json(const json& j, Correctness& v) {
  get(j, "atol", v.atol);
  get(j, "rtol", v.rtol);
  get(j, "trials", v.trials);
  get(j, "checks", v.checks);
}

void to_json(json& j, const TimeSummary& v) {
  j = json{{"p50_us", v.p50_us}, {"p10_us", v.p10_us}, {"p90_us", v.p90_us}, {"reps", v.reps}, {"method", v.method},
           {"spread", v.spread()}, {"noisy", v.spread() > kNoisySpread}};
  put(j, "p50_low_us", v.p50_low_us);
  put(j, "p50_high_us", v.p50_high_us);
  put(j, "calls_per_sample", v.calls_per_sample);
  if (!v.samples_us.empty()) j["samples_us"] = v.samples_us;
}
void from_json(const json& j, TimeSummary& v) {
  need(j, "p50_us", v.p50_us);
  need(j, "p10_us", v.p10_us);
  need(j, "p90_us", v.p90_us);
  get(j, "reps", v.reps);
  get(j, "method", v.method);
  get(j, "p50_low_us", v.p50_low_us);
  get(j, "p50_high_us", v.p50_high_us);
  get(j, "calls_per_sample", v.calls_per_sample);
  get(j, "samples_us", v.samples_us);
}

void to_json(json& j, const SpeedupRange& v) { j = json{{"low", v.low}, {"high", v.high}}; }
void from_json(const json& j, SpeedupRange& v) {
  need(j, "low", v.low);
  need(j, "high", v.high);
}

TimeSummary call_time(const Timing& t) {
  if (t.call) return *t.call;
  return TimeSummary{t.p50_us, t.p10_us, t.p90_us, t.reps, t.method};
}
TimeSummary basis_time(const Timing& t) { return t.device ? *t.device : call_time(t); }
std::string_view basis_name(const Timing& t) { return t.device ? "device" : "call"; }

void divide_times(const TimeSummary& reference, const TimeSummary& kernel, bool flagged, std::optional<double>& point,
                  std::optional<SpeedupRange>& range) {
  if (reference.p50_us <= 0 || kernel.p50_us <= 0) return;
  if (!flagged && reference.spread() <= kNoisySpread && kernel.spread() <= kNoisySpread) {
    point = reference.p50_us / kernel.p50_us;
    return;
  }
  const double kernel_high = std::max(kernel.p90_us, kernel.p50_us), kernel_low = std::min(kernel.p10_us, kernel.p50_us);
  const double reference_high = std::max(reference.p90_us, reference.p50_us);
  const double reference_low = std::min(reference.p10_us, reference.p50_us);
  if (kernel_low <= 0 || reference_low <= 0) return;
  range = SpeedupRange{reference_low / kernel_high, reference_high / kernel_low};
}

void to_json(json& j, const Timing& v) {
  j = json{{"p50_us", v.p50_us}, {"p10_us", v.p10_us}, {"p90_us", v.p90_us}, {"reps", v.reps}, {"method", v.method}};
  put(j, "mean_us", v.mean_us);
  put(j, "min_us", v.min_us);
  put(j, "max_us", v.max_us);
  put(j, "warmup", v.warmup);
  put(j, "spot_checks", v.spot_checks);
  put(j, "call", v.call);
  put(j, "device", v.device);
  put(j, "device_records", v.device_records);
  put(j, "device_per_call", v.device_per_call);
  put(j, "kernel_counters_note", v.kernel_counters_note);
  if (!v.device_kernels.empty()) j["device_kernels"] = v.device_kernels;
  put(j, "settle_ms", v.settle_ms);
}
void from_json(const json& j, Timing& v) {
  need(j, "p50_us", v.p50_us);
  need(j, "p10_us", v.p10_us);
  need(j, "p90_us", v.p90_us);
  need(j, "reps", v.reps);
  need(j, "method", v.method);
  get(j, "mean_us", v.mean_us);
  get(j, "min_us", v.min_us);
  get(j, "max_us", v.max_us);
  get(j, "warmup", v.warmup);
  get(j, "spot_checks", v.spot_checks);
  get(j, "call", v.call);
  get(j, "device", v.device);
  get(j, "device_records", v.device_records);
  get(j, "device_per_call", v.device_per_call);
  get(j, "kernel_counters_note", v.kernel_counters_note);
  get(j, "device_kernels", v.device_kernels);
  get(j, "settle_ms", v.settle_ms);
}

void to_json(json& j, const CountedKernel& v) { j = json{{"name", v.name}, {"p50_us", v.p50_us}}; }
void from_json(const json& j, CountedKernel& v) {
  get(j, "name", v.name);
  need(j, "p50_us", v.p50_us);
}

void to_json(json& j, const Baselines& v) {
  j = json::object();
  put(j, "eager", v.eager);
  j["compile"] = v.compile_measured && v.compile ? json(*v.compile) : json(nullptr);
}
void from_json(const json& j, Baselines& v) {
  get(j, "eager", v.eager);
  get(j, "compile", v.compile);
  v.compile_measured = v.compile.has_value();
}

void to_json(json& j, const Speedup& v) {
  j = json{{"eager", v.eager ? json(*v.eager) : json(nullptr)}, {"compile", v.compile ? json(*v.compile) : json(nullptr)}};
  put(j, "eager_range", v.eager_range);
  put(j, "compile_range", v.compile_range);
  if (!v.basis.empty()) j["basis"] = v.basis;
  if (v.by_call) {
    json c{{"eager", v.call_eager ? json(*v.call_eager) : json(nullptr)},
           {"compile", v.call_compile ? json(*v.call_compile) : json(nullptr)}};
    put(c, "eager_range", v.call_eager_range);
    put(c, "compile_range", v.call_compile_range);
    j["call"] = c;
  }
}
void from_json(const json& j, Speedup& v) {
  get(j, "eager", v.eager);
  get(j, "compile", v.compile);
  get(j, "eager_range", v.eager_range);
  get(j, "compile_range", v.compile_range);
  get(j, "basis", v.basis);
  if (auto it = j.find("call"); it != j.end() && it->is_object()) {
    v.by_call = true;
    get(*it, "eager", v.call_eager);
    get(*it, "compile", v.call_compile);
    get(*it, "eager_range", v.call_eager_range);
    get(*it, "compile_range", v.call_compile_range);
  }
}

void to_json(json& j, const Floor& v) {
  j = json{{"bytes", v.bytes}, {"peak_dram_bytes_per_s", v.peak_dram_bytes_per_s}, {"floor_us", v.floor_us}};
}
void from_json(const json& j, Floor& v) {
  get(j, "bytes", v.bytes);
  get(j, "peak_dram_bytes_per_s", v.peak_dram_bytes_per_s);
  get(j, "floor_us", v.floor_us);
}

void to_json(json& j, const KernelRecord& v) {
  j = json{{"name", v.name}, {"duration_us", v.duration_us}, {"own", v.own}};
  put(j, "stream", v.stream);
  if (!v.grid.empty()) j["grid"] = v.grid;
  if (!v.block.empty()) j["block"] = v.block;
  put(j, "registers", v.registers);
  put(j, "shared_bytes", v.shared_bytes);
}
void from_json(const json& j, KernelRecord& v) {
  need(j, "name", v.name);
  need(j, "duration_us", v.duration_us);
  need(j, "own", v.own);
  get(j, "stream", v.stream);
  get(j, "grid", v.grid);
  get(j, "block", v.block);
  get(j, "registers", v.registers);
  get(j, "shared_bytes", v.shared_bytes);
}

void to_json(json& j, const KernelTime& v) {
  j = json::object();
  put(j, "own_us", v.own_us);
  put(j, "library_us", v.library_us);
  put(j, "own_share", v.own_share);
  if (!v.kernels.empty()) j["kernels"] = v.kernels;
}
void from_json(const json& j, KernelTime& v) {
  get(j, "own_us", v.own_us);
  get(j, "library_us", v.library_us);
  get(j, "own_share", v.own_share);
  get(j, "kernels", v.kernels);
}

void to_json(json& j, const Flag& v) { j = json{{"id", v.id}, {"message", v.message}}; }
void from_json(const json& j, Flag& v) {
  need(j, "id", v.id);
  get(j, "message", v.message);
}

void to_json(json& j, const AnswerFacts& v) {
  j = json{{"initialised", v.initialised}, {"parameters", v.parameters}, {"extensions", v.extensions}, {"triton", v.triton}};
}
void from_json(const json& j, AnswerFacts& v) {
  get(j, "initialised", v.initialised);
  get(j, "parameters", v.parameters);
  get(j, "extensions", v.extensions);
  get(j, "triton", v.triton);
}

void to_json(json& j, const Evidence& v) {
  j = json::object();
  put(j, "signal", v.signal);
  put(j, "exit_code", v.exit_code);
  put(j, "cuda_error", v.cuda_error);
  if (!v.stderr_tail.empty()) j["stderr_tail"] = v.stderr_tail;
  put(j, "traceback", v.traceback);
  put(j, "oom_kills", v.oom_kills);
}
void from_json(const json& j, Evidence& v) {
  get(j, "signal", v.signal);
  get(j, "exit_code", v.exit_code);
  get(j, "cuda_error", v.cuda_error);
  get(j, "stderr_tail", v.stderr_tail);
  get(j, "traceback", v.traceback);
  get(j, "oom_kills", v.oom_kills);
}

void to_json(json& j, const KernelRef& v) {
  j = json{{"path", v.path}, {"hash", v.hash}, {"form", v.form}, {"language", v.language}};
}
void from_json(const json& j, KernelRef& v) {
  need(j, "path", v.path);
  need(j, "hash", v.hash);
  get(j, "form", v.form);
  get(j, "language", v.language);
}

void to_json(json& j, const TaskRef& v) {
  j = json{{"path", v.path}, {"hash", v.hash}};
  put(j, "name", v.name);
}
void from_json(const json& j, TaskRef& v) {
  need(j, "path", v.path);
  need(j, "hash", v.hash);
  get(j, "name", v.name);
}

void to_json(json& j, const DeviceRef& v) {
  j = json{{"kind", v.kind}, {"name", v.name}};
  put(j, "index", v.index);
  put(j, "arch", v.arch);
  put(j, "uuid", v.uuid);
}
void from_json(const json& j, DeviceRef& v) {
  need(j, "kind", v.kind);
  need(j, "name", v.name);
  get(j, "index", v.index);
  get(j, "arch", v.arch);
  get(j, "uuid", v.uuid);
}

void to_json(json& j, const ExecutorFacts& v) {
  j = json{{"kind", v.kind}, {"attempts", v.attempts}};
  put(j, "job_id", v.job_id);
  put(j, "node", v.node);
}
void from_json(const json& j, ExecutorFacts& v) {
  need(j, "kind", v.kind);
  get(j, "job_id", v.job_id);
  get(j, "node", v.node);
  v.attempts = j.value("attempts", 1);
}

void to_json(json& j, const ToolchainVersions& v) {
  j = json::object();
  put(j, "nvcc", v.nvcc);
  put(j, "host_compiler", v.host_compiler);
  put(j, "torch", v.torch);
  put(j, "python", v.python);
}
void from_json(const json& j, ToolchainVersions& v) {
  get(j, "nvcc", v.nvcc);
  get(j, "host_compiler", v.host_compiler);
  get(j, "torch", v.torch);
  get(j, "python", v.python);
}

void to_json(json& j, const SandboxFacts& v) {
  j = json{{"mode", v.mode}, {"explicitly_disabled", v.explicitly_disabled}};
  put(j, "warning", v.warning);
}
void from_json(const json& j, SandboxFacts& v) {
  need(j, "mode", v.mode);
  get(j, "explicitly_disabled", v.explicitly_disabled);
  get(j, "warning", v.warning);
}

void to_json(json& j, const Verdict& v) {
  j = json{{"schema_version", Verdict::kSchemaVersion}, {"status", to_string(v.status)}};
  if (v.status != Status::Correct) j["reason"] = v.reason.value_or(std::string(to_string(v.status)));
  else put(j, "reason", v.reason);
  j["kernel"] = v.kernel;
  j["task"] = v.task;
  j["device"] = v.device;
  put(j, "toolchain", v.toolchain);
  j["sandbox"] = v.sandbox;
  j["compile"] = v.compile;
  put(j, "signature", v.signature);
  put(j, "correctness", v.correctness);
  put(j, "timing", v.timing);
  put(j, "baselines", v.baselines);
  put(j, "speedup", v.speedup);
  put(j, "floor", v.floor);
  put(j, "kernel_time", v.kernel_time);
  j["flags"] = v.flags;
  if (v.evidence && !v.evidence->empty()) j["evidence"] = *v.evidence;
  put(j, "answer", v.answer);
  put(j, "profile", v.profile);
  if (!v.seconds.empty()) j["seconds"] = v.seconds;
  put(j, "created_at", v.created_at);
  put(j, "executor", v.executor);
}

void from_json(const json& j, Verdict& v) {
  std::string status;
  need(j, "status", status);
  auto parsed = parse_status(status);
  if (!parsed) throw std::runtime_error("verdict: unknown status '" + status + "'");
  v.status = *parsed;
  get(j, "reason", v.reason);
  need(j, "kernel", v.kernel);
  need(j, "task", v.task);
  need(j, "device", v.device);
  get(j, "toolchain", v.toolchain);
  need(j, "sandbox", v.sandbox);
  need(j, "compile", v.compile);
  get(j, "signature", v.signature);
  get(j, "correctness", v.correctness);
  get(j, "timing", v.timing);
  get(j, "answer", v.answer);
  get(j, "baselines", v.baselines);
  get(j, "speedup", v.speedup);
  get(j, "floor", v.floor);
  get(j, "kernel_time", v.kernel_time);
  get(j, "flags", v.flags);
  get(j, "evidence", v.evidence);
  get(j, "profile", v.profile);
  get(j, "seconds", v.seconds);
  get(j, "created_at", v.created_at);
  get(j, "executor", v.executor);
}

}  // namespace hone::protocol
