// support/subprocess.h: run a child process to completion with captured output, an optional
// deadline and its own process group (so a deadline kills the whole tree: nvcc's cicc and ptxas,
// a candidate's children). Used by the toolchain drivers, the sandbox and tests, from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace hone {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is a path or a name looked up on PATH
  std::optional<std::filesystem::path> cwd;
  // nullopt: inherit the parent's environment; otherwise exactly these variables.
  std::optional<std::map<std::string, std::string>> env;
  std::chrono::milliseconds timeout{0};  // 0: no deadline
  std::string stdin_data;
  std::size_t max_output_bytes = 16u << 20;  // per stream; the rest is dropped and reported
  std::stop_token stop;  // a stop request kills the whole process group (ProcessResult::cancelled)
};

struct ProcessResult {
  bool started = false;
  std::string start_error;  // why it did not start (not found, not executable)
  int exit_code = -1;       // valid when exited normally
  int signal = 0;           // terminating signal, 0 if none
  bool timed_out = false;
  bool cancelled = false;  // killed because ProcessSpec::stop was requested
  bool output_truncated = false;
  std::string out;
  std::string err;
  double seconds = 0;

  bool ok() const { return started && !timed_out && !cancelled && signal == 0 && exit_code == 0; }
  // "exit code 1", "killed by SIGSEGV", "timed out after 30 s", "cancelled", "could not start: ..."
  std::string describe() const;
};

ProcessResult run_process(const ProcessSpec& spec);

// Resolve a program name on PATH (or return it unchanged if it holds a '/'); nullopt if absent.
std::optional<std::filesystem::path> find_program(const std::string& name);

// For a child between fork and exec (async-signal-safe, no allocation): closes every descriptor
// from 3 up except those in keep[0, count). Boost 1.81's launcher skips the gaps between the
// descriptors it keeps, so without this a child inherits the pipes of any other child started at
// the same moment by another thread, and holds them open (its reader never sees end of file).
void close_descriptors_except(const int* keep, std::size_t count);

// The current environment as a map (for building a child's environment from it).
std::map<std::string, std::string> current_environment();

}  // namespace hone
