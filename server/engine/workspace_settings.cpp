// engine/workspace_settings.cpp: hone.toml's [run] and [slurm] tables (toml++).
#include "engine/workspace_settings.h"

#include <toml++/toml.h>

namespace hone {
namespace {

[[noreturn]] void bad(const std::filesystem::path& file, const toml::node& node, const std::string& what) {
  throw EngineError(EngineError::Kind::Usage, file.string() + ":" + std::to_string(node.source().begin.line) + ": " + what);
}

std::optional<std::string> text(const std::filesystem::path& file, const toml::table& t, const char* key) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (auto s = n->value<std::string>()) return *s;
  if (auto i = n->value<std::int64_t>()) return std::to_string(*i);
  bad(file, *n, std::string(key) + " must be a string");
}

std::optional<int> number(const std::filesystem::path& file, const toml::table& t, const char* key) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (auto i = n->value<std::int64_t>(); i && *i > 0) return static_cast<int>(*i);
  bad(file, *n, std::string(key) + " must be a positive integer");
}

}  // namespace

WorkspaceSettings read_workspace_settings(const std::filesystem::path& workspace) {
  WorkspaceSettings s;
  const std::filesystem::path file = workspace / "hone.toml";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return s;
  s.file = file;
  toml::table parsed;
  try {
    parsed = toml::parse_file(file.string());
  } catch (const toml::parse_error& err) {
    throw EngineError(EngineError::Kind::Usage, file.string() + ":" + std::to_string(err.source().begin.line) + ": " +
                                                    std::string(err.description()));
  }
  if (const toml::table* run = parsed["run"].as_table()) {
    s.gpus = text(file, *run, "gpus");
    s.executor = text(file, *run, "executor");
  }
  if (const toml::table* slurm = parsed["slurm"].as_table()) {
    if (auto v = text(file, *slurm, "partition")) s.slurm.partition = *v;
    if (auto v = text(file, *slurm, "account")) s.slurm.account = *v;
    if (auto v = text(file, *slurm, "time")) s.slurm.time_limit = *v;
    if (auto v = text(file, *slurm, "gres")) s.slurm.gres = *v;
    if (auto v = text(file, *slurm, "hone")) s.slurm.hone_binary = *v;
    if (auto v = number(file, *slurm, "batch")) s.slurm.batch_size = *v;
    if (auto v = number(file, *slurm, "retries")) s.slurm.max_attempts = *v;
    if (const toml::node* args = slurm->get("args")) {
      const toml::array* list = args->as_array();
      if (!list) bad(file, *args, "args must be an array of strings");
      for (const toml::node& a : *list) {
        auto v = a.value<std::string>();
        if (!v) bad(file, a, "args must be an array of strings");
        s.slurm.extra_args.push_back(*v);
      }
    }
  }
  return s;
}

void apply_gpus(EngineOptions& options, const std::string& gpus) {
  auto sel = GpuSelection::parse(gpus);
  if (!sel) throw EngineError(EngineError::Kind::Usage, "--gpus '" + gpus + "': give all, a count (2) or indices (0,2)");
  options.gpus = *sel;
  if (sel->mode == GpuSelection::Mode::List) options.gpu_index = sel->indices.front();
}

void apply_executor(EngineOptions& options, const std::string& executor) {
  if (executor == "local") options.executor = Executor::Local;
  else if (executor == "slurm") options.executor = Executor::Slurm;
  else throw EngineError(EngineError::Kind::Usage, "--executor '" + executor + "': local or slurm");
}

}  // namespace hone
