// cli/engine_flags.h: what the commands that verify kernels (check, task, bench) share: the
// engine flags and the EngineOptions made from them, the one-line progress display on a
// terminal, and error reporting with its exit code. Main thread only.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "engine/engine.h"

namespace hone::cli {

struct EngineFlags {
  std::string device = "auto";
  std::string python;
  bool no_sandbox = false;
  int seeds = 0;
  double timeout_s = 0;
  std::string arch;
  std::string baselines = "all";
  // Scale-out (unset: hone.toml's [run] and [slurm], else one GPU and the local executor).
  std::string gpus;
  std::string executor;
  std::string slurm_partition, slurm_account, slurm_time, slurm_gres;
  int slurm_batch = 0, slurm_retries = 0;
};

// --device and --python.
void add_engine_flags(CLI::App* cmd, EngineFlags& f);
// --seeds, --timeout, --arch, --baselines, --no-sandbox (what a verification may be asked for).
void add_check_flags(CLI::App* cmd, EngineFlags& f);

// --gpus, --executor and the --slurm-* flags (check, bench, optimize).
void add_scale_flags(CLI::App* cmd, EngineFlags& f);

// The engine's options from the flags, over the workspace's hone.toml ([run], [slurm]). Throws
// EngineError(Usage) for a bad --gpus/--executor value or a bad hone.toml.
EngineOptions engine_options(const EngineFlags& f);

// A single status line on stderr, rewritten as progress arrives; nothing when disabled.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { clear(); }
  void show(const std::string& text);
  void show(const Progress& p) { show(p.stage + ": " + p.message); }
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
};

// Prints the error (and, with --json, one object naming the `about` subject); returns the exit
// code: 1 when cancelled, 3 for a GPU kernel that built where there is no GPU, else 2.
int report_error(const EngineError& e, bool as_json, const char* about, const std::string& subject);

}  // namespace hone::cli
