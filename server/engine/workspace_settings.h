// engine/workspace_settings.h: the scale-out settings of a workspace's hone.toml, which the front
// ends apply under their own flags and settings: `[run] gpus = "all"`, `[run] executor = "slurm"`,
// and the `[slurm]` table (partition, account, time, gres, batch, retries, args, hone). Main
// thread of a front end; pure apart from reading the file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/engine.h"

namespace hone {

struct WorkspaceSettings {
  std::optional<std::string> gpus;      // as --gpus takes it
  std::optional<std::string> executor;  // "local" | "slurm"
  SlurmOptions slurm;                   // the file's values over the defaults
  std::filesystem::path file;           // the hone.toml read; empty: none
};

// Reads <workspace>/hone.toml when there is one. Throws EngineError(Usage) for a file that does
// not parse or a value of the wrong type, naming the file and line.
WorkspaceSettings read_workspace_settings(const std::filesystem::path& workspace);

// Applies --gpus / --executor text to the options; throws EngineError(Usage) naming the flag.
void apply_gpus(EngineOptions& options, const std::string& gpus);
void apply_executor(EngineOptions& options, const std::string& executor);

}  // namespace hone
