// runner/time_plan.cpp: checking a time request and planning its input copies.
#include "runner/time_plan.h"

#include <algorithm>

#include "mix_choice.h"
#include "runner/wire.h"

namespace hone::runner {
namespace {

constexpr std::size_t kMaxRuns = 65536;

struct Dim {
  std::int64_t size, stride;
};

std::size_t read_index(const nlohmann::json& v, std::size_t count, const std::string& what) {
  const std::int64_t i = read_int(v, what);
  if (i < 0 || static_cast<std::size_t>(i) >= count)
    bad_request(what + ": " + std::to_string(i) + " is out of range (0.." + std::to_string(count) + ")");
  return static_cast<std::size_t>(i);
}

// Where forward's buffers must live so that a held stream never waits on a pageable copy.
void require_device_visible(const TensorView& t, const std::string& where) {
  if (t.arena->kind == "host" && !t.arena->registered)
    bad_request(where + ": mode \"device\" needs every buffer in a cuda arena or a registered host arena");
}

std::vector<ArgSpec> parse_set(const nlohmann::json& list, const std::vector<ArgSpec>& targets,
                               const ArenaTable& arenas, const std::string& where) {
  std::vector<ArgSpec> set = parse_args(list, arenas, where);
  if (set.size() != targets.size())
    bad_request(where + ": " + std::to_string(set.size()) + " ARGs, the targets have " + std::to_string(targets.size()));
  for (std::size_t i = 0; i < set.size(); ++i) {
    const bool tensor = targets[i].kind == hone::ArgKind::Tensor;
    if (tensor != (set[i].kind == hone::ArgKind::Tensor))
      bad_request(where + "[" + std::to_string(i) + "]: a tensor in one and a scalar in the other");
    if (tensor && !set[i].tensor.same_layout(targets[i].tensor))
      bad_request(where + "[" + std::to_string(i) + "]: dtype, shape or strides differ from args[" + std::to_string(i) + "]");
  }
  return set;
}

// A tensor whose elements fill its storage span in row-major order (hone_mix mixes it as a flat array).
bool contiguous(const TensorView& t) {
  std::int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

// "mix": {"seed": s, "args": [arg...]}: those contiguous tensor targets are made from every set.
void parse_mix(const nlohmann::json& entry, const TimePlan& p, const std::string& where, TimedCall& c) {
  const nlohmann::json* mix = find(entry, "mix");
  if (!mix) return;
  const std::string w = where + ".mix";
  if (!mix->is_object()) bad_request(w + " must be an object {\"seed\", \"args\"}");
  const std::int64_t seed = read_int(require(*mix, "seed", w), w + ".seed");
  if (seed < 0 || seed > 0xFFFFFFFFll) bad_request(w + ".seed must be a 32-bit unsigned integer");
  c.mix_seed = static_cast<unsigned>(seed);
  if (p.sets.empty() || p.sets.size() > static_cast<std::size_t>(hone::harness::kMaxMixSets))
    bad_request(w + ": a mix needs 1 to " + std::to_string(hone::harness::kMaxMixSets) + " input sets, not " +
                std::to_string(p.sets.size()));
  const nlohmann::json& args = require_array(*mix, "args", w);
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::size_t a = read_index(args[k], p.targets.size(), w + ".args[" + std::to_string(k) + "]");
    const ArgSpec& target = p.targets[a];
    if (target.kind != hone::ArgKind::Tensor || !contiguous(target.tensor))
      bad_request(w + ": args[" + std::to_string(a) + "] is not a contiguous tensor (only those are mixed)");
    if (std::find(c.mixed.begin(), c.mixed.end(), a) != c.mixed.end())
      bad_request(w + ": args[" + std::to_string(a) + "] is named twice");
    c.mixed.push_back(a);
  }
}

TimedCall parse_call(const nlohmann::json& entry, const TimePlan& p, const std::string& where) {
  TimedCall c;
  if (const nlohmann::json* set = find(entry, "set"))
    c.set = p.sets.empty() ? read_index(*set, 1, where + ".set") : read_index(*set, p.sets.size(), where + ".set");
  if (const nlohmann::json* slot = find(entry, "slot"))
    c.slot = read_index(*slot, std::max<std::size_t>(p.slots.size(), 1), where + ".slot");
  else if (!p.slots.empty())
    bad_request(where + ": \"slot\" is missing");
  parse_mix(entry, p, where, c);
  const nlohmann::json* rows = find(entry, "rows");
  if (!rows) return c;
  if (!rows->is_array()) bad_request(where + ".rows must be an array of [arg, row, donor_set]");
  for (std::size_t k = 0; k < rows->size(); ++k) {
    const std::string w = where + ".rows[" + std::to_string(k) + "]";
    const nlohmann::json& r = (*rows)[k];
    if (!r.is_array() || r.size() != 3) bad_request(w + ": expected [arg, row, donor_set]");
    RowSwap s;
    s.arg = read_index(r[0], p.targets.size(), w + "[0] (arg)");
    const ArgSpec& target = p.targets[s.arg];
    if (target.kind != hone::ArgKind::Tensor || target.tensor.ndim == 0)
      bad_request(w + ": args[" + std::to_string(s.arg) + "] has no rows (a scalar or a 0-d tensor)");
    s.row = static_cast<std::int64_t>(read_index(r[1], static_cast<std::size_t>(target.tensor.sizes[0]), w + "[1] (row)"));
    if (p.sets.empty()) bad_request(w + ": a row needs input sets to come from");
    s.donor = read_index(r[2], p.sets.size(), w + "[2] (donor_set)");
    c.rows.push_back(s);
  }
  return c;
}

void plan_copies(TimePlan& p) {
  for (const ArgSpec& a : p.targets) {
    if (a.kind != hone::ArgKind::Tensor) {
      p.whole.emplace_back();
      p.row0.emplace_back();
      p.row_bytes.push_back(0);
      continue;
    }
    p.whole.push_back(plan_copy(a.tensor, std::nullopt));
    const bool has_rows = a.tensor.ndim > 0 && a.tensor.sizes[0] > 0;
    p.row0.push_back(has_rows ? plan_copy(a.tensor, 0) : std::vector<CopyRun>{});
    p.row_bytes.push_back(a.tensor.ndim > 0 ? static_cast<std::size_t>(a.tensor.strides[0]) * a.tensor.itemsize : 0);
  }
}

void parse_options(const nlohmann::json& request, TimePlan& p) {
  if (const nlohmann::json* v = find(request, "warmup")) {
    const std::int64_t w = read_int(*v, "time.warmup");
    if (w < 0 || w > 1000000) bad_request("time.warmup must be 0..1000000");
    p.warmup = static_cast<int>(w);
  }
  if (const nlohmann::json* v = find(request, "settle_ms")) p.settle_ms = read_double(*v, "time.settle_ms");
  if (const nlohmann::json* v = find(request, "settle_min_ms")) p.settle_min_ms = read_double(*v, "time.settle_min_ms");
  if (!(p.settle_min_ms >= 0 && p.settle_min_ms <= 600000)) bad_request("time.settle_min_ms must be 0..600000");
  if (const nlohmann::json* v = find(request, "flush_bytes")) {
    const std::int64_t f = read_int(*v, "time.flush_bytes");
    if (f < 0) bad_request("time.flush_bytes is negative");
    p.flush_bytes = static_cast<std::size_t>(f);
  }
  if (const nlohmann::json* v = find(request, "spin_timeout_ms")) p.spin_timeout_ms = read_double(*v, "time.spin_timeout_ms");
  if (const nlohmann::json* v = find(request, "kernel_records")) {
    if (!v->is_boolean()) bad_request("time.kernel_records must be true or false");
    p.kernel_records = v->get<bool>();
  }
  if (const nlohmann::json* v = find(request, "kernel_counters")) {
    const std::int64_t n = read_int(*v, "time.kernel_counters");
    if (n < 0 || n > 4096) bad_request("time.kernel_counters must be 0..4096 (the most kernel ranges to count)");
    p.kernel_counters = static_cast<std::size_t>(n);
  }
  if (const nlohmann::json* v = find(request, "flush_each_kernel")) {
    if (!v->is_boolean()) bad_request("time.flush_each_kernel must be true or false");
    p.flush_each_kernel = v->get<bool>();
  }
  if (!(p.settle_ms >= 0 && p.settle_ms <= 600000) || !(p.spin_timeout_ms > 0 && p.spin_timeout_ms <= 120000))
    bad_request("time: settle_ms must be 0..600000 and spin_timeout_ms 0..120000 (exclusive of 0)");
}

}  // namespace

std::vector<CopyRun> plan_copy(const TensorView& t, std::optional<std::int64_t> row) {
  if (t.numel() == 0) return {};
  std::vector<Dim> dims;
  for (int d = row ? 1 : 0; d < t.ndim; ++d)
    if (t.sizes[d] > 1 && t.strides[d] != 0) dims.push_back({t.sizes[d], t.strides[d]});
  std::sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  std::size_t k = 0;
  std::int64_t width = 1;
  while (k < dims.size() && dims[k].stride == width) width *= dims[k++].size;
  CopyRun base{row ? static_cast<std::size_t>(*row * t.strides[0]) * t.itemsize : 0, 0,
               static_cast<std::size_t>(width) * t.itemsize, 1};
  base.pitch = base.width;
  if (k < dims.size()) {
    if (dims[k].stride < width) bad_request("time: a tensor whose elements overlap cannot be copied between input sets");
    base.pitch = static_cast<std::size_t>(dims[k].stride) * t.itemsize;
    base.rows = static_cast<std::size_t>(dims[k++].size);
  }
  std::vector<CopyRun> runs{base};
  for (; k < dims.size(); ++k) {
    if (runs.size() * static_cast<std::size_t>(dims[k].size) > kMaxRuns)
      bad_request("time: a tensor layout too scattered to copy between input sets (more than 65536 runs)");
    std::vector<CopyRun> next;
    for (const CopyRun& r : runs)
      for (std::int64_t i = 0; i < dims[k].size; ++i) {
        CopyRun moved = r;
        moved.offset += static_cast<std::size_t>(i * dims[k].stride) * t.itemsize;
        next.push_back(moved);
      }
    runs = std::move(next);
  }
  return runs;
}

TimePlan plan_time(const nlohmann::json& request, const ArenaTable& arenas, const Backend& backend) {
  TimePlan p;
  const nlohmann::json& mode = require(request, "mode", "time");
  if (mode != "call" && mode != "device") bad_request("time: \"mode\" must be \"call\" or \"device\"");
  p.device_mode = mode == "device";
  if (p.device_mode && !backend.is_cuda())
    throw OpError(ErrorKind::Unsupported, "time: mode \"device\" (a held stream) needs a CUDA device; on the CPU use mode \"call\"");
  p.targets = parse_args(require_array(request, "args", "time"), arenas, "time.args");
  if (const nlohmann::json* sets = find(request, "sets")) {
    if (!sets->is_array()) bad_request("time.sets must be an array of ARG lists");
    for (std::size_t k = 0; k < sets->size(); ++k)
      p.sets.push_back(parse_set((*sets)[k], p.targets, arenas, "time.sets[" + std::to_string(k) + "]"));
  }
  const nlohmann::json& outputs = require_array(request, "outputs", "time");
  for (std::size_t j = 0; j < outputs.size(); ++j)
    p.slots.push_back(parse_buffers(outputs[j], arenas, "time.outputs[" + std::to_string(j) + "]"));
  const nlohmann::json& schedule = require_array(request, "schedule", "time");
  for (std::size_t i = 0; i < schedule.size(); ++i)
    p.schedule.push_back(parse_call(schedule[i], p, "time.schedule[" + std::to_string(i) + "]"));
  parse_options(request, p);
  if (p.device_mode) {
    p.release = arenas.resolve(require(request, "release", "time (mode device)"), "time.release");
    if (!p.release->arena->registered || p.release->itemsize != 4 || p.release->numel() != 1)
      bad_request("time.release must be one 32-bit element of a registered host arena (\"register\": true)");
    for (const ArgSpec& a : p.targets)
      if (a.kind == hone::ArgKind::Tensor) require_device_visible(a.tensor, "time.args");
    for (const auto& set : p.sets)
      for (const ArgSpec& a : set)
        if (a.kind == hone::ArgKind::Tensor) require_device_visible(a.tensor, "time.sets");
    for (const auto& slot : p.slots)
      for (const TensorView& t : slot) require_device_visible(t, "time.outputs");
  }
  if (p.kernel_records && !p.device_mode) bad_request("time.kernel_records needs mode \"device\" (the records of held calls)");
  if (p.kernel_counters > 0 && p.device_mode)
    bad_request("time.kernel_counters needs mode \"call\" (the Range Profiler replays each kernel: it cannot hold a stream)");
  if (p.flush_each_kernel && (p.kernel_counters == 0 || p.flush_bytes == 0))
    bad_request("time.flush_each_kernel needs kernel_counters and flush_bytes (it flushes before each counted kernel)");
  if (p.kernel_counters > 0 && !backend.is_cuda())
    throw OpError(ErrorKind::Unsupported, "time.kernel_counters needs a CUDA device (hardware counters)");
  plan_copies(p);
  return p;
}

}  // namespace hone::runner
