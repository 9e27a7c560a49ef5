// eval/plausibility.cpp: compulsory bytes, the physical floor and speedups.
#include "eval/plausibility.h"

#include <map>

#include "protocol/verdict_text.h"

namespace hone::eval {

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
  if (floor.floor_us <= 0 || timing.p50_us >= floor.floor_us) return std::nullopt;
  return "measured " + format_us(timing.p50_us) + " per call is below the physical floor of " +
         format_us(floor.floor_us) + " (" + format_bytes(floor.bytes) + " of inputs and outputs at the GPU's peak " +
         format_rate(floor.peak_dram_bytes_per_s) +
         "): the timed calls cannot have read the inputs and written the outputs";
}

protocol::Speedup speedups(const protocol::Timing& timing, const protocol::Baselines& baselines) {
  protocol::Speedup s;
  if (timing.p50_us <= 0) return s;
  if (baselines.eager && baselines.eager->p50_us > 0) s.eager = baselines.eager->p50_us / timing.p50_us;
  if (baselines.compile_measured && baselines.compile && baselines.compile->p50_us > 0)
    s.compile = baselines.compile->p50_us / timing.p50_us;
  return s;
}

}  // namespace hone::eval
