// eval/plausibility.cpp: compulsory bytes, the physical floor and speedups.
#include "eval/plausibility.h"

#include <map>

#include "protocol/verdict_text.h"

namespace hone::eval {

using protocol::divide_times;
using protocol::format_bytes;
using protocol::format_rate;
using protocol::format_us;

int dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, int> sizes{
      {"float32", 4}, {"float", 4},  {"float16", 2}, {"half", 2},  {"bfloat16", 2}, {"float64", 8},
      {"double", 8},  {"int32", 4},  {"int64", 8},   {"long", 8},  {"int16", 2},    {"int8", 1},
      {"uint8", 1},   {"bool", 1},   {"complex64", 8}, {"complex128", 16}, {"float8_e4m3fn", 1},
      {"float8_e5m2", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::optional<double> compulsory_bytes(const protocol::Signature& signature) {
  double total = 0;
  for (const auto* group : {&signature.inputs, &signature.params, &signature.outputs}) {
    for (const auto& spec : *group) {
      if (spec.kind != "tensor") continue;
      if (!spec.dtype) return std::nullopt;
      int size = dtype_bytes(*spec.dtype);
      if (size == 0) return std::nullopt;
      double n = 1;
      for (auto d : spec.shape) n *= static_cast<double>(d);
      total += n * size;
    }
  }
  return total;
}

protocol::Floor physical_floor(double bytes, double peak_dram_bytes_per_s) {
  protocol::Floor f;
  f.bytes = bytes;
  f.peak_dram_bytes_per_s = peak_dram_bytes_per_s;
  f.floor_us = peak_dram_bytes_per_s > 0 ? bytes / peak_dram_bytes_per_s * 1e6 : 0;
  return f;
}

std::optional<std::string> below_floor_reason(const protocol::Timing& timing, const protocol::Floor& floor) {
  if (floor.floor_us <= 0) return std::nullopt;
  double p50 = timing.p50_us;
  std::string which = "measured ";
  if (timing.device && timing.device->p50_us > 0 && timing.device->p50_us < p50) {
    p50 = timing.device->p50_us;
    which = "device time (" + timing.device->method + ") ";
  }
  if (p50 >= floor.floor_us) return std::nullopt;
  return which + format_us(p50) + " per call is below the physical floor of " +
         format_us(floor.floor_us) + " (" + format_bytes(floor.bytes) + " of inputs and outputs at the GPU's peak " +
         format_rate(floor.peak_dram_bytes_per_s) +
         "): the timed calls cannot have read the inputs and written the outputs";
}

protocol::Speedup speedups(const protocol::Timing& timing, const protocol::Baselines& baselines,
                           FlaggedBaselines flagged) {
  protocol::Speedup s;
  if (timing.p50_us <= 0) return s;
  const protocol::Timing* eager = baselines.eager ? &*baselines.eager : nullptr;
  const protocol::Timing* compile = baselines.compile_measured && baselines.compile ? &*baselines.compile : nullptr;
  // Device time when the kernel and every baseline have one measured the same way (kernel
  // counters beside activity records would compare two definitions), else call time: the same
  // time on both sides.
  auto same_device = [&](const protocol::Timing* b) {
    return !b || (b->device && b->device->method == timing.device->method);
  };
  const bool device = timing.device && same_device(eager) && same_device(compile);
  s.basis = device ? "device" : "call";
  auto time_of = [&](const protocol::Timing& t) { return device ? protocol::basis_time(t) : protocol::call_time(t); };
  if (eager) divide_times(time_of(*eager), time_of(timing), flagged.eager, s.eager, s.eager_range);
  if (compile) divide_times(time_of(*compile), time_of(timing), flagged.compile, s.compile, s.compile_range);
  if (device) {
    s.by_call = true;
    if (eager)
      divide_times(protocol::call_time(*eager), protocol::call_time(timing), flagged.eager, s.call_eager, s.call_eager_range);
    if (compile)
      divide_times(protocol::call_time(*compile), protocol::call_time(timing), flagged.compile, s.call_compile,
                   s.call_compile_range);
  }
  return s;
}

}  // namespace hone::eval
