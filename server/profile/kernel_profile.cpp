// profile/kernel_profile.cpp: parsing the worker's profile result and deriving quantities from
// counters (formulas as in Nsight Compute's roofline sections and CUPTI's metrics mapping table).
#include "profile/kernel_profile.h"

#include <algorithm>
#include <stdexcept>

#include "toolchain/demangle.h"

namespace hone::profile {
namespace {

std::optional<double> get(const MetricValues& m, const std::string& name) {
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::optional<double> sum_of(const MetricValues& m, std::initializer_list<const char*> names) {
  double total = 0;
  for (const char* n : names) {
    auto v = get(m, n);
    if (!v) return std::nullopt;
    total += *v;
  }
  return total;
}

// adds + muls + 2 fmas of one SASS precision ("f", "d", "h"); absent unless all three exist.
std::optional<double> sass_flops(const MetricValues& m, const std::string& p) {
  auto add = get(m, "smsp__sass_thread_inst_executed_op_" + p + "add_pred_on.sum");
  auto mul = get(m, "smsp__sass_thread_inst_executed_op_" + p + "mul_pred_on.sum");
  auto fma = get(m, "smsp__sass_thread_inst_executed_op_" + p + "fma_pred_on.sum");
  if (!add || !mul || !fma) return std::nullopt;
  return *add + *mul + 2 * *fma;
}

std::optional<double> ratio_pct(std::optional<double> part, std::optional<double> whole) {
  if (!part || !whole || *whole <= 0) return std::nullopt;
  return 100.0 * *part / *whole;
}

// Ignores an efficiency percentage when no instruction of that kind ran (CUPTI reports 0).
std::optional<double> when_used(const MetricValues& m, const char* pct, const char* count) {
  auto n = get(m, count);
  if (n && *n <= 0) return std::nullopt;
  return get(m, pct);
}

int int_at(const nlohmann::json& j, const char* key, int fallback = 0) {
  return j.contains(key) && j[key].is_number() ? j[key].get<int>() : fallback;
}

std::array<int, 3> dims(const nlohmann::json& j, const char* key) {
  std::array<int, 3> d{1, 1, 1};
  if (j.contains(key) && j[key].is_array())
    for (std::size_t i = 0; i < 3 && i < j[key].size(); ++i) d[i] = j[key][i].get<int>();
  return d;
}

// A list member of an object (empty when absent), copied so loops never run over a temporary.
nlohmann::json list_at(const nlohmann::json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_array()) return j[key];
  return nlohmann::json::array();
}

// A launch is the candidate's own when its name, less namespaces and template arguments, is one
// of the candidate's __global__ names: "void hone_attention::attention_kernel<__nv_bfloat16, 64,
// 4, 32, 1, Causal>(...)" is attention_kernel's.
bool is_own(const KernelLaunch& k, const std::vector<std::string>& own_kernels) {
  const std::string base = toolchain::function_base_name(k.name);
  for (const std::string& own : own_kernels)
    if (!own.empty() && (own == k.mangled || own == base)) return true;
  return false;
}

KernelLaunch parse_kernel(const nlohmann::json& k, const std::vector<std::string>& own_kernels) {
  if (!k.is_object() || !k.contains("name")) throw std::runtime_error("profile result: a kernel record has no name: " + k.dump());
  KernelLaunch r;
  r.name = k["name"].get<std::string>();
  r.mangled = k.value("mangled", r.name);
  r.duration_us = k.value("duration_ns", 0.0) / 1e3;
  r.grid = dims(k, "grid");
  r.block = dims(k, "block");
  r.registers_per_thread = int_at(k, "registers_per_thread");
  r.static_shared_bytes = int_at(k, "static_shared_bytes");
  r.dynamic_shared_bytes = int_at(k, "dynamic_shared_bytes");
  r.local_bytes_per_thread = int_at(k, "local_bytes_per_thread");
  r.stream = k.value("stream", std::int64_t{0});
  r.own = is_own(r, own_kernels);
  return r;
}

}  // namespace

DerivedMetrics derive(const MetricValues& m) {
  DerivedMetrics d;
  d.dram_read_bytes = get(m, "dram__bytes_read.sum");
  d.dram_write_bytes = get(m, "dram__bytes_write.sum");
  if (auto f = sass_flops(m, "f")) d.flops[Precision::fp32] = *f;
  if (auto f = sass_flops(m, "d")) d.flops[Precision::fp64] = *f;
  if (auto f = sass_flops(m, "h")) d.flops[Precision::fp16] = *f;
  const std::pair<const char*, Precision> tensor[] = {
      {"sm__ops_path_tensor_src_fp16.sum", Precision::fp16_tensor},
      {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", Precision::bf16_tensor},
      {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", Precision::tf32_tensor},
      {"sm__ops_path_tensor_src_fp64.sum", Precision::fp64_tensor},
      {"sm__ops_path_tensor_src_fp8.sum", Precision::fp8_tensor},
      {"sm__ops_path_tensor_src_int8.sum", Precision::int8_tensor}};
  for (const auto& [name, p] : tensor)
    if (auto v = get(m, name)) d.flops[p] = *v;
  d.global_load_efficiency_pct = when_used(m, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                                           "smsp__sass_inst_executed_op_global_ld.sum");
  d.global_store_efficiency_pct = when_used(m, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
                                            "smsp__sass_inst_executed_op_global_st.sum");
  auto wavefronts = sum_of(m, {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                               "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"});
  auto requests = sum_of(m, {"smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum"});
  if (wavefronts && requests && *requests > 0) d.shared_wavefronts_per_request = *wavefronts / *requests;
  d.divergent_branch_pct = ratio_pct(get(m, "smsp__sass_branch_targets_threads_divergent.sum"),
                                     get(m, "smsp__sass_branch_targets.sum"));
  d.local_memory_instructions = sum_of(m, {"smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum"});
  d.achieved_occupancy_pct = get(m, "sm__warps_active.avg.pct_of_peak_sustained_active");
  d.tensor_instructions = get(m, "sm__inst_executed_pipe_tensor.sum");
  d.sm_clock_hz = get(m, "sm__cycles_elapsed.avg.per_second");
  d.dram_clock_hz = get(m, "dram__cycles_elapsed.avg.per_second");
  auto peak = get(m, "dram__bytes.sum.peak_sustained");
  if (peak && d.dram_clock_hz) d.device_peak_dram_bytes_per_s = *peak * *d.dram_clock_hz;
  d.l1_hit_pct = get(m, "l1tex__t_sector_hit_rate.pct");
  d.l2_hit_pct = get(m, "lts__t_sector_hit_rate.pct");
  auto threads = get(m, "smsp__sass_thread_inst_executed.sum");
  auto insts = get(m, "smsp__sass_inst_executed.sum");
  if (threads && insts && *insts > 0) d.active_threads_per_instruction = *threads / *insts;
  return d;
}

double ProfiledCall::own_us() const {
  double t = 0;
  for (const ProfiledKernel& k : kernels)
    if (k.record.own) t += k.record.duration_us;
  return t;
}

double ProfiledCall::library_us() const {
  double t = 0;
  for (const ProfiledKernel& k : kernels)
    if (!k.record.own) t += k.record.duration_us;
  return t;
}

double ProfiledCall::copy_us() const {
  double t = 0;
  for (const CopyRecord& c : copies) t += c.duration_us;
  return t;
}

std::string base_kernel_name(const std::string& demangled) {
  std::string s = demangled;
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  // A template instance's demangled name starts with its return type: "void k<128>".
  int depth = 0;  // inside <...> or (...), e.g. "(anonymous namespace)"
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    if (s[i] == '>' || s[i] == ')') --depth;
    if (s[i] == ' ' && depth == 0) return base_kernel_name(s.substr(i + 1));
  }
  return s;
}

ProfiledCall parse_profiled_call(const nlohmann::json& side, const std::vector<std::string>& own_kernels) {
  if (!side.is_object()) throw std::runtime_error("profile result: expected an object, got " + side.dump());
  ProfiledCall call;
  const nlohmann::json activity = side.value("activity", nlohmann::json());
  if (activity.is_object()) {
    const nlohmann::json kernels = list_at(activity, "kernels");
    for (const nlohmann::json& k : kernels) call.kernels.push_back({parse_kernel(k, own_kernels), {}, {}});
    const nlohmann::json memcpys = list_at(activity, "memcpys");
    for (const nlohmann::json& c : memcpys)
      call.copies.push_back({c.value("kind", std::string("copy")), c.value("bytes", std::int64_t{0}),
                             c.value("duration_ns", 0.0) / 1e3});
    const nlohmann::json memsets = list_at(activity, "memsets");
    for (const nlohmann::json& c : memsets)
      call.copies.push_back({"memset", c.value("bytes", std::int64_t{0}), c.value("duration_ns", 0.0) / 1e3});
  }
  const nlohmann::json seconds = side.value("seconds", nlohmann::json::object());
  call.activity_seconds = seconds.value("activity", 0.0);
  call.replay_seconds = seconds.value("metrics", 0.0);
  call.counters.source = side.value("source", std::string("cupti"));
  const nlohmann::json error = side.value("counters_error", nlohmann::json());
  if (error.is_object()) {
    call.counters.code = error.value("code", std::string("unavailable"));
    call.counters.message = error.value("message", std::string("hardware counters are unavailable"));
  }
  const nlohmann::json metrics = side.value("metrics", nlohmann::json());
  if (!metrics.is_object()) {
    if (call.counters.code.empty()) {
      call.counters.code = "not_collected";
      call.counters.message = "hardware counters were not collected";
    }
    return call;
  }
  call.counters.available = true;
  call.counters.chip = metrics.value("chip", std::string());
  call.counters.set = metrics.value("set", std::string());
  call.counters.passes = metrics.value("passes", 0);
  const nlohmann::json omitted = list_at(metrics, "omitted");
  for (const nlohmann::json& o : omitted)
    call.counters.omitted.push_back(o.value("name", std::string()));
  const nlohmann::json ranges = list_at(metrics, "ranges");
  if (ranges.size() != call.kernels.size()) {
    call.match_note = std::to_string(ranges.size()) + " counter ranges for " + std::to_string(call.kernels.size()) +
                      " traced kernels: the replayed call launched different kernels, so counters are not attributed";
    return call;
  }
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const nlohmann::json values = ranges[i].value("values", nlohmann::json::object());
    for (const auto& [name, value] : values.items())
      if (value.is_number()) call.kernels[i].metrics[name] = value.get<double>();
    call.kernels[i].derived = derive(call.kernels[i].metrics);
  }
  return call;
}

}  // namespace hone::profile
