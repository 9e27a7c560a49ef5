// toolchain/command_runner.cpp: the compiler subprocess with its environment and hook.
#include "toolchain/command_runner.h"

namespace hone::toolchain {

ProcessResult run_compiler(const CompilerCommand& command) {
  ProcessSpec spec;
  spec.argv = command.argv;
  spec.cwd = command.work_dir;
  auto env = current_environment();
  env["TMPDIR"] = command.work_dir.string();
  // Messages in a stable language, so the diagnostics parser reads them.
  env.insert_or_assign("LC_ALL", std::string(1, 'C'));
  env.erase("LANGUAGE");
  for (const auto& [name, value] : command.env) env[name] = value;
  spec.env = std::move(env);
  spec.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(command.timeout);
  spec.stop = command.stop;
  if (command.wrap) spec = command.wrap(std::move(spec));
  return run_process(spec);
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (a.find_first_of(" \t\"'$") != std::string::npos) {
      out += '\'';
      for (char c : a) {
        if (c == '\'') out.append("'\\''");
        else out.push_back(c);
      }
      out += '\'';
    } else {
      out += a;
    }
  }
  return out;
}

}  // namespace hone::toolchain
