// toolchain/nvcc_pipeline.h: one nvcc command run as nvcc runs it, but with its two front ends at
// the same time. nvcc runs its steps one after another: host preprocessing and cudafe++, then
// device preprocessing, cicc, ptxas and fatbinary, then the host compile and the link. The two
// chains only meet at the host compile (which embeds the fatbin) and at the module id (a name
// cudafe++ writes and cicc reads); hone writes that id itself, so the host front end and the
// whole device chain can overlap. The steps and their environment come from `nvcc --dryrun` of the
// same command, so flags, paths and tool versions are nvcc's own; the output is what nvcc would
// print (steps in nvcc's order, nothing after the first failure). Anything unexpected in the
// dry run falls back to running nvcc itself. Used by the KernelBuilder.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/subprocess.h"
#include "toolchain/command_runner.h"

namespace hone::toolchain {

struct NvccStep {
  std::string tool;  // "cudafe++", "cicc", "g++", "rm", ...: the program's file name
  std::string line;  // the command as nvcc printed it (shell syntax, may name $CICC_PATH)
};

struct NvccSteps {
  std::map<std::string, std::string> env;  // what nvcc sets for its children (PATH, CICC_PATH, ...)
  std::string driver_messages;             // nvcc's own messages (warnings) from the dry run
  std::vector<NvccStep> before;            // e.g. removing a stale file
  std::vector<NvccStep> host;              // host preprocessing, cudafe++ (module id read, not made)
  std::vector<NvccStep> device;            // device preprocessing, cicc, ptxas, fatbinary
  std::vector<NvccStep> after;             // host compile, device link, link
  std::string module_id_file;              // as named in the commands (relative to the work folder)
};

// Splits `nvcc --dryrun` output (its stderr) into the groups above; nullopt, with the reason in
// *why, when the steps are not shaped as expected (then nvcc must run as one command).
std::optional<NvccSteps> split_nvcc_steps(std::string_view dryrun, std::string* why = nullptr);

// A module id in cudafe++'s shape ("_<hex>_<n>_<file name>_<hex>"), fixed by `seed` (the
// command and the source's text).
std::string make_module_id(std::string_view seed, std::string_view source_name);

struct OverlapReport {
  bool overlapped = false;  // false: nvcc ran as one command
  std::string why_not;      // when not overlapped
  double host_seconds = 0, device_seconds = 0, after_seconds = 0;
};

// Runs `command` (an nvcc command line) with the front ends overlapped, falling back to
// run_compiler(command) when the dry run is not as expected. `before_after`, when set, is called
// (and waited for) before the host compile and link: for an input that is still being produced.
// The result reads as nvcc's: output in step order, the first failing step's status.
ProcessResult run_nvcc_overlapped(const CompilerCommand& command, const std::function<void()>& before_after = {},
                                  OverlapReport* report = nullptr);

}  // namespace hone::toolchain
