// protocol/build_report.h: the build report as C++ structs: the compile report (a verdict's
// "compile" field) spelled like $defs/compile, $defs/diagnostic and $defs/kernel_static of
// protocol/schema/verdict.schema.json, with to_json/from_json, and the whole build's report
// (`hone build --json`: the compile report with the build's facts). Written by the toolchain
// (hone_toolchain's KernelBuilder) and the engine (Engine::build), any thread; read by the CLI,
// the language server and the optimizer. Plain values: copy freely between threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::protocol {

enum class Severity { Error, Warning, Note };
// Which tool said it: the CUDA front end, the host compiler, ptxas, the linker, or hone itself.
enum class DiagnosticSource { Nvcc, Host, Ptxas, Linker, Hone };
enum class BlockSizeSource { LaunchBounds, LaunchSite, Assumed, Measured };
enum class OccupancyLimit { Registers, SharedMemory, Warps, Blocks };

std::string_view to_string(Severity v);
std::string_view to_string(DiagnosticSource v);
std::string_view to_string(BlockSizeSource v);
std::string_view to_string(OccupancyLimit v);

struct Diagnostic {
  std::string file;  // the user's file (or a local header), never hone's generated translation unit
  int line = 0;      // 1-based; 0 when the tool gives no line
  int column = 0;    // 1-based; 0 when unknown
  Severity severity = Severity::Error;
  std::string message;
  DiagnosticSource source = DiagnosticSource::Hone;
};

// Static instruction counts by access width in bits (8, 16, 32, 64, 128, 256).
using WidthCounts = std::map<int, std::int64_t>;

// Memory and tensor-core instructions of one kernel, counted statically in its PTX or SASS.
struct InstructionFacts {
  WidthCounts global_loads;
  WidthCounts global_stores;
  std::int64_t local_loads = 0;
  std::int64_t local_stores = 0;
  bool tensor_core = false;
  std::vector<std::string> tensor_core_instructions;  // distinct opcodes: "mma.sync.aligned...", "HGMMA..."
};

// Theoretical occupancy for the target architecture from registers, shared memory and block size.
struct Occupancy {
  int block_size = 0;
  BlockSizeSource block_size_source = BlockSizeSource::Assumed;
  int active_blocks_per_sm = 0;
  int active_warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double occupancy_pct = 0;
  OccupancyLimit limited_by = OccupancyLimit::Warps;
};

// What the compiler tells about one __global__ function.
struct KernelStatic {
  std::string name;     // demangled: "relu_kernel(float const*, float*, long)"
  std::string mangled;  // "_Z11relu_kernelPKfPfl"
  std::optional<int> line;  // its line in the user's file (absent when it is defined elsewhere)
  std::optional<std::int64_t> registers;
  std::optional<std::int64_t> spill_store_bytes;
  std::optional<std::int64_t> spill_load_bytes;
  std::optional<std::int64_t> static_shared_bytes;
  std::optional<std::int64_t> stack_frame_bytes;
  std::optional<std::int64_t> constant_bytes;
  std::optional<InstructionFacts> ptx;
  std::optional<InstructionFacts> sass;  // absent (JSON null) where cuobjdump is not available
  std::optional<Occupancy> occupancy;
};

struct CompileReport {
  bool ok = false;
  bool cached = false;
  double seconds = 0;
  std::string arch;                  // "sm_90"; "cpu" for host-compiled kernels
  std::vector<std::string> command;  // the compiler command that built the library
  std::string library;               // the built shared library; empty when the build failed
  std::vector<Diagnostic> diagnostics;
  std::vector<KernelStatic> kernels;
  bool sass_available = false;
  // What the kernel's own code imports or defines that no kernel needs and a tamperer does
  // ("imports mprotect", "defines cudaEventElapsedTime (...)"); empty for an honest kernel.
  std::vector<std::string> tamper_signs;

  // Counts diagnostics of one severity.
  std::size_t count(Severity severity) const;
};

// A kernel's build as Engine::build reports it (what `hone build --json` prints).
struct BuildReport {
  std::string kernel;             // the kernel's path
  std::string outcome;            // "built" | "compile_error" | "timed_out" (the compiler ran past its deadline)
  std::string form = "unknown";   // "raw" | "torch" | "unknown"
  std::string language;           // "cuda" | "cpp"
  CompileReport compile;          // library, diagnostics, per-kernel facts; compile.ok when built
  std::string kernel_hash;        // sha256 of the source and its local headers
  std::string key;                // the build cache key
  std::string op_namespace;       // torch form: torch.ops.<op_namespace>.forward
  std::vector<std::string> own_kernels;  // the kernel's own __global__ names
  std::map<std::string, double> stage_seconds;  // "analyze", "compile", "facts", ...
  std::string torch_headers;      // torch form, fresh builds: "light", or "full: <why>"
  std::string nvcc;               // fresh CUDA builds: "overlapped", or "one command: <why>"
  std::string error;              // what a timed-out compile said

  bool ok() const { return compile.ok; }
};

void to_json(nlohmann::json& j, const BuildReport& v);
void to_json(nlohmann::json& j, const Diagnostic& v);
void from_json(const nlohmann::json& j, Diagnostic& v);
void to_json(nlohmann::json& j, const InstructionFacts& v);
void from_json(const nlohmann::json& j, InstructionFacts& v);
void to_json(nlohmann::json& j, const Occupancy& v);
void from_json(const nlohmann::json& j, Occupancy& v);
void to_json(nlohmann::json& j, const KernelStatic& v);
void from_json(const nlohmann::json& j, KernelStatic& v);
void to_json(nlohmann::json& j, const CompileReport& v);
void from_json(const nlohmann::json& j, CompileReport& v);

}  // namespace hone::protocol
