// toolchain/task_pairing.cpp: kernel -> task pairing (directive, stem, hone.toml via toml++).
#include "toolchain/task_pairing.h"

#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include <regex>
#include <sstream>


namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

// `// hone: task=PATH` (the path may be quoted); returns the path and its line.
std::optional<std::pair<std::string, int>> task_directive(std::string_view source) {
  static const std::regex re(R"re(^\s*//\s*hone\s*:\s*task\s*=\s*(?:"([^"]+)"|(\S+)))re");
  std::istringstream in{std::string(source)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::smatch m;
    if (std::regex_search(line, m, re)) return std::make_pair(m[1].matched ? m[1].str() : m[2].str(), number);
  }
  return std::nullopt;
}

}  // namespace

TaskPairing find_task_for_kernel(const fs::path& kernel, std::string_view source) {
  TaskPairing result;
  const fs::path abs = fs::absolute(kernel).lexically_normal();
  const fs::path dir = abs.parent_path();
  std::error_code ec;

  if (auto directive = task_directive(source)) {
    fs::path task = fs::path(directive->first);
    if (task.is_relative()) task = dir / task;
    task = task.lexically_normal();
    result.how = "directive (line " + std::to_string(directive->second) + ")";
    result.tried.push_back("// hone: task=" + directive->first + " -> " + task.string());
    if (!fs::is_regular_file(task, ec)) {
      result.error = abs.string() + ":" + std::to_string(directive->second) + ": the task named by `// hone: task=" +
                     directive->first + "` does not exist: " + task.string();
      return result;
    }
    result.task = task;
    return result;
  }

  fs::path stem = dir / (abs.stem().string() + ".py");
  result.tried.push_back("same stem: " + stem.string());
  if (fs::is_regular_file(stem, ec)) {
    result.task = stem;
    result.how = "same stem";
    return result;
  }

  for (fs::path folder = dir;; folder = folder.parent_path()) {
    fs::path toml_path = folder / "hone.toml";
    if (fs::is_regular_file(toml_path, ec)) {
      result.tried.push_back("[kernels] of " + toml_path.string());
      toml::table parsed;
      try {
        parsed = toml::parse_file(toml_path.string());
      } catch (const toml::parse_error& err) {
        result.error = toml_path.string() + ":" + std::to_string(err.source().begin.line) + ":" +
                       std::to_string(err.source().begin.column) + ": " + std::string(err.description());
        return result;
      }
      const std::string key = abs.lexically_relative(folder).generic_string();
      if (const toml::table* kernels = parsed["kernels"].as_table()) {
        if (auto value = (*kernels)[key].value<std::string>()) {
          fs::path task = fs::path(*value);
          if (task.is_relative()) task = folder / task;
          task = task.lexically_normal();
          result.how = toml_path.string();
          if (!fs::is_regular_file(task, ec)) {
            result.error = toml_path.string() + ": [kernels] \"" + key + "\" names a task that does not exist: " + task.string();
            return result;
          }
          result.task = task;
          return result;
        }
      }
    }
    if (folder == folder.root_path() || folder.empty()) break;
  }
  if (result.tried.size() == 1) result.tried.push_back("no hone.toml in " + dir.string() + " or its parents");
  return result;
}

}  // namespace hone::toolchain
