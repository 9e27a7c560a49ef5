// protocol/build_report.cpp: JSON conversion of the build report (shape: $defs/compile,
// $defs/diagnostic, $defs/kernel_static of protocol/schema/verdict.schema.json).
#include "protocol/build_report.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace hone::protocol {
namespace {

using nlohmann::json;

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Severity, 3> kSeverity{{
    {Severity::Error, "error"}, {Severity::Warning, "warning"}, {Severity::Note, "note"}}};
constexpr NameTable<DiagnosticSource, 5> kSource{{{DiagnosticSource::Nvcc, "nvcc"},
                                                  {DiagnosticSource::Host, "host"},
                                                  {DiagnosticSource::Ptxas, "ptxas"},
                                                  {DiagnosticSource::Linker, "linker"},
                                                  {DiagnosticSource::Hone, "hone"}}};
constexpr NameTable<BlockSizeSource, 4> kBlockSource{{{BlockSizeSource::LaunchBounds, "launch_bounds"},
                                                      {BlockSizeSource::LaunchSite, "launch_site"},
                                                      {BlockSizeSource::Assumed, "assumed"},
                                                      {BlockSizeSource::Measured, "measured"}}};
constexpr NameTable<OccupancyLimit, 4> kLimit{{{OccupancyLimit::Registers, "registers"},
                                               {OccupancyLimit::SharedMemory, "shared_memory"},
                                               {OccupancyLimit::Warps, "warps"},
                                               {OccupancyLimit::Blocks, "blocks"}}};

template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return table[0].second;
}

template <class E, std::size_t N>
E parse_name(const NameTable<E, N>& table, const json& j, const char* field) {
  const std::string text = j.get<std::string>();
  for (const auto& [e, name] : table)
    if (name == text) return e;
  throw std::runtime_error(std::string("build report: unknown ") + field + " '" + text + "'");
}

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
  if (it == j.end() || it->is_null()) throw std::runtime_error(std::string("build report: missing field '") + key + "'");
  it->get_to(out);
}

json widths_to_json(const WidthCounts& counts) {
  json j = json::object();
  for (const auto& [bits, n] : counts) j[std::to_string(bits)] = n;
  return j;
}

WidthCounts widths_from_json(const json& j) {
  WidthCounts counts;
  for (const auto& [key, value] : j.items()) counts[std::stoi(key)] = value.get<std::int64_t>();
  return counts;
}

}  // namespace

std::string_view to_string(Severity v) { return name_of(kSeverity, v); }
std::string_view to_string(DiagnosticSource v) { return name_of(kSource, v); }
std::string_view to_string(BlockSizeSource v) { return name_of(kBlockSource, v); }
std::string_view to_string(OccupancyLimit v) { return name_of(kLimit, v); }

std::size_t CompileReport::count(Severity severity) const {
  return static_cast<std::size_t>(std::count_if(diagnostics.begin(), diagnostics.end(),
                                                [&](const Diagnostic& d) { return d.severity == severity; }));
}

void to_json(json& j, const BuildReport& v) {
  j = json{{"kernel", v.kernel},   {"outcome", v.outcome},           {"language", v.language},
           {"form", v.form},       {"compile", v.compile},           {"stage_seconds", v.stage_seconds},
           {"own_kernels", v.own_kernels}};
  if (!v.error.empty()) j["error"] = v.error;
  if (!v.key.empty()) j["key"] = v.key;
  if (!v.kernel_hash.empty()) j["kernel_hash"] = v.kernel_hash;
  if (!v.op_namespace.empty()) j["op_namespace"] = v.op_namespace;
  if (!v.torch_headers.empty()) j["torch_headers"] = v.torch_headers;
  if (!v.nvcc.empty()) j["nvcc"] = v.nvcc;
}

void to_json(json& j, const Diagnostic& v) {
  j = json{{"file", v.file},
           {"line", v.line},
           {"column", v.column},
           {"severity", to_string(v.severity)},
           {"message", v.message},
           {"source", to_string(v.source)}};
}
void from_json(const json& j, Diagnostic& v) {
  need(j, "file", v.file);
  need(j, "line", v.line);
  need(j, "column", v.column);
  v.severity = parse_name(kSeverity, j.at("severity"), "severity");
  need(j, "message", v.message);
  if (auto it = j.find("source"); it != j.end()) v.source = parse_name(kSource, *it, "source");
}

void to_json(json& j, const InstructionFacts& v) {
  j = json{{"global_loads", widths_to_json(v.global_loads)},
           {"global_stores", widths_to_json(v.global_stores)},
           {"local_loads", v.local_loads},
           {"local_stores", v.local_stores},
           {"tensor_core", v.tensor_core},
           {"tensor_core_instructions", v.tensor_core_instructions}};
}
void from_json(const json& j, InstructionFacts& v) {
  if (auto it = j.find("global_loads"); it != j.end()) v.global_loads = widths_from_json(*it);
  if (auto it = j.find("global_stores"); it != j.end()) v.global_stores = widths_from_json(*it);
  get(j, "local_loads", v.local_loads);
  get(j, "local_stores", v.local_stores);
  get(j, "tensor_core", v.tensor_core);
  get(j, "tensor_core_instructions", v.tensor_core_instructions);
}

void to_json(json& j, const Occupancy& v) {
  j = json{{"block_size", v.block_size},
           {"block_size_source", to_string(v.block_size_source)},
           {"active_blocks_per_sm", v.active_blocks_per_sm},
           {"active_warps_per_sm", v.active_warps_per_sm},
           {"max_warps_per_sm", v.max_warps_per_sm},
           {"occupancy_pct", v.occupancy_pct},
           {"limited_by", to_string(v.limited_by)}};
}
void from_json(const json& j, Occupancy& v) {
  get(j, "block_size", v.block_size);
  if (auto it = j.find("block_size_source"); it != j.end())
    v.block_size_source = parse_name(kBlockSource, *it, "block_size_source");
  get(j, "active_blocks_per_sm", v.active_blocks_per_sm);
  get(j, "active_warps_per_sm", v.active_warps_per_sm);
  get(j, "max_warps_per_sm", v.max_warps_per_sm);
  get(j, "occupancy_pct", v.occupancy_pct);
  if (auto it = j.find("limited_by"); it != j.end()) v.limited_by = parse_name(kLimit, *it, "limited_by");
}

void to_json(json& j, const KernelStatic& v) {
  j = json{{"name", v.name}, {"mangled", v.mangled}};
  put(j, "line", v.line);
  put(j, "registers", v.registers);
  put(j, "spill_store_bytes", v.spill_store_bytes);
  put(j, "spill_load_bytes", v.spill_load_bytes);
  put(j, "static_shared_bytes", v.static_shared_bytes);
  put(j, "stack_frame_bytes", v.stack_frame_bytes);
  put(j, "constant_bytes", v.constant_bytes);
  put(j, "ptx", v.ptx);
  j["sass"] = v.sass ? json(*v.sass) : json(nullptr);
  put(j, "occupancy", v.occupancy);
}
void from_json(const json& j, KernelStatic& v) {
  need(j, "name", v.name);
  need(j, "mangled", v.mangled);
  get(j, "line", v.line);
  get(j, "registers", v.registers);
  get(j, "spill_store_bytes", v.spill_store_bytes);
  get(j, "spill_load_bytes", v.spill_load_bytes);
  get(j, "static_shared_bytes", v.static_shared_bytes);
  get(j, "stack_frame_bytes", v.stack_frame_bytes);
  get(j, "constant_bytes", v.constant_bytes);
  get(j, "ptx", v.ptx);
  get(j, "sass", v.sass);
  get(j, "occupancy", v.occupancy);
}

void to_json(json& j, const CompileReport& v) {
  j = json{{"ok", v.ok},
           {"cached", v.cached},
           {"seconds", v.seconds},
           {"arch", v.arch},
           {"command", v.command},
           {"diagnostics", v.diagnostics},
           {"kernels", v.kernels},
           {"sass_available", v.sass_available}};
  if (!v.library.empty()) j["library"] = v.library;
  if (!v.tamper_signs.empty()) j["tamper_signs"] = v.tamper_signs;
}
void from_json(const json& j, CompileReport& v) {
  need(j, "ok", v.ok);
  need(j, "diagnostics", v.diagnostics);
  get(j, "cached", v.cached);
  get(j, "seconds", v.seconds);
  get(j, "arch", v.arch);
  get(j, "command", v.command);
  get(j, "library", v.library);
  get(j, "kernels", v.kernels);
  get(j, "sass_available", v.sass_available);
  get(j, "tamper_signs", v.tamper_signs);
}

}  // namespace hone::protocol
