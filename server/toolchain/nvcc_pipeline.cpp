// toolchain/nvcc_pipeline.cpp: nvcc's steps from its dry run, with the host front end and the
// device chain overlapped.
#include "toolchain/nvcc_pipeline.h"

#include <cctype>
#include <chrono>
#include <regex>
#include <sstream>
#include <stop_token>
#include <thread>

#include "support/hash.h"

namespace hone::toolchain {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// The program a command line runs: its first word without quotes, then its file name.
std::string tool_of(const std::string& line) {
  std::string word;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c == ' ' || c == '\t')) {
      if (word.empty()) continue;
      break;
    }
    word.push_back(c);
  }
  const auto slash = word.rfind('/');
  return slash == std::string::npos ? word : word.substr(slash + 1);
}

std::optional<std::string> option_value(const std::string& line, const std::string& option) {
  const std::regex re("(^|\\s)" + option + "\\s+(\"([^\"]*)\"|(\\S+))");
  std::smatch m;
  if (!std::regex_search(line, m, re)) return std::nullopt;
  return m[3].matched ? m[3].str() : m[4].str();
}

bool has_flag(const std::string& line, const std::string& flag) {
  return std::regex_search(line, std::regex("(^|\\s)" + flag + "(\\s|$)"));
}

std::optional<NvccSteps> refuse(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return std::nullopt;
}

struct Deadline {
  Clock::time_point at;
  std::chrono::seconds left() const { return std::chrono::duration_cast<std::chrono::seconds>(at - Clock::now()); }
};

ProcessResult remove_files(const std::string& line, const fs::path& work) {
  ProcessResult r;
  r.started = true;
  r.exit_code = 0;
  std::istringstream words(line);
  std::string w;
  words >> w;  // "rm"
  while (words >> w) {
    std::erase(w, '"');
    if (w.empty() || w.front() == '-') continue;
    std::error_code ec;
    fs::remove(fs::path(w).is_absolute() ? fs::path(w) : work / w, ec);
  }
  return r;
}

ProcessResult run_step(const NvccStep& step, const CompilerCommand& base, const NvccSteps& steps, const Deadline& deadline,
                       std::stop_token stop) {
  if (step.tool == "rm") return remove_files(step.line, base.work_dir);
  const auto left = deadline.left();
  if (left.count() <= 0) {
    ProcessResult r;
    r.started = true;
    r.timed_out = true;
    return r;
  }
  CompilerCommand c{{"/bin/sh", "-c", "exec " + step.line}, base.work_dir, left, std::move(stop), base.wrap, base.env};
  for (const auto& [name, value] : steps.env) c.env[name] = value;
  return run_compiler(c);
}

std::vector<ProcessResult> run_group(const std::vector<NvccStep>& group, const CompilerCommand& base, const NvccSteps& steps,
                                     const Deadline& deadline, const std::stop_token& stop, double* seconds) {
  const auto t0 = Clock::now();
  std::vector<ProcessResult> results;
  for (const auto& step : group) {
    results.push_back(run_step(step, base, steps, deadline, stop));
    if (!results.back().ok()) break;
  }
  *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return results;
}

bool all_ok(const std::vector<ProcessResult>& results) {
  for (const auto& r : results)
    if (!r.ok()) return false;
  return true;
}

}  // namespace

std::optional<NvccSteps> split_nvcc_steps(std::string_view dryrun, std::string* why) {
  NvccSteps out;
  std::vector<NvccStep> steps;
  static const std::regex assignment(R"(^([A-Za-z_][A-Za-z0-9_]*)=(.*)$)");
  std::istringstream lines{std::string(dryrun)};
  std::string line;
  while (std::getline(lines, line)) {
    line = trim_right(line);
    if (line.empty()) continue;
    if (!line.starts_with("#$ ")) {
      out.driver_messages += line + "\n";
      continue;
    }
    std::string body = line.substr(3);
    std::smatch m;
    if (std::regex_match(body, m, assignment)) {
      out.env[m[1].str()] = trim_right(m[2].str());
      continue;
    }
    steps.push_back({tool_of(body), body});
  }

  auto find = [&](const std::string& tool, std::size_t from) {
    for (std::size_t i = from; i < steps.size(); ++i)
      if (steps[i].tool == tool) return i;
    return steps.size();
  };
  const std::size_t cudafe = find("cudafe++", 0);
  if (cudafe == steps.size()) return refuse(why, "no cudafe++ step");
  if (cudafe == 0 || !has_flag(steps[cudafe - 1].line, "-E")) return refuse(why, "cudafe++ does not follow host preprocessing");
  const std::size_t cicc = find("cicc", cudafe + 1);
  if (cicc == steps.size()) return refuse(why, "no cicc step after cudafe++");
  const std::size_t fatbinary = find("fatbinary", cicc + 1);
  if (fatbinary == steps.size() || fatbinary + 1 == steps.size()) return refuse(why, "no fatbinary step before the host compile");
  if (find("cudafe++", cudafe + 1) != steps.size()) return refuse(why, "more than one cudafe++ step");

  NvccStep front = steps[cudafe];
  if (!has_flag(front.line, "--gen_module_id_file")) return refuse(why, "cudafe++ does not make the module id");
  auto id_file = option_value(front.line, "--module_id_file_name");
  if (!id_file || id_file->empty()) return refuse(why, "cudafe++ names no module id file");
  auto host_output = option_value(front.line, "--gen_c_file_name");
  if (!host_output || host_output->empty()) return refuse(why, "cudafe++ names no output");
  for (std::size_t i = 0; i + 1 < cudafe; ++i)
    if (steps[i].tool != "rm") return refuse(why, "an unexpected step before the host front end: " + steps[i].tool);
  for (std::size_t i = cudafe + 1; i <= fatbinary; ++i) {
    if (steps[i].line.find(*host_output) != std::string::npos)
      return refuse(why, "a device step reads cudafe++'s output: " + steps[i].tool);
    if (steps[i].tool == "cicc" && option_value(steps[i].line, "--module_id_file_name") != id_file)
      return refuse(why, "cicc reads another module id file");
  }
  front.line = std::regex_replace(front.line, std::regex("(^|\\s)--gen_module_id_file(?=\\s|$)"), "");

  out.module_id_file = *id_file;
  out.before.assign(steps.begin(), steps.begin() + static_cast<long>(cudafe - 1));
  out.host = {steps[cudafe - 1], front};
  out.device.assign(steps.begin() + static_cast<long>(cudafe + 1), steps.begin() + static_cast<long>(fatbinary + 1));
  out.after.assign(steps.begin() + static_cast<long>(fatbinary + 1), steps.end());
  return out;
}

std::string make_module_id(std::string_view seed, std::string_view source_name) {
  const std::string h = sha256_hex(seed);
  std::string name(source_name);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return "_" + h.substr(0, 8) + "_" + std::to_string(name.size()) + "_" + name + "_" + h.substr(8, 8);
}

namespace {

// The module id names the file's anonymous-namespace and static device symbols; the worker
// loads many kernels into one process, so it is made from the command and the source's text.
void write_module_id(const CompilerCommand& command, const NvccSteps& steps) {
  const std::string source = option_value(steps.host.back().line, "--orig_src_file_name").value_or("kernel.cu");
  const std::string source_path = option_value(steps.host.back().line, "--orig_src_path_name").value_or(source);
  std::string seed = command_line(command.argv);
  try {
    seed += "\n" + read_file(fs::path(source_path).is_absolute() ? fs::path(source_path) : command.work_dir / source_path);
  } catch (const std::exception&) {
    seed += "\n" + command.work_dir.string();  // unreadable here (confined paths): unique per build folder
  }
  const fs::path id_path = fs::path(steps.module_id_file).is_absolute() ? fs::path(steps.module_id_file)
                                                                         : command.work_dir / steps.module_id_file;
  fs::create_directories(id_path.parent_path());
  write_file_atomic(id_path, make_module_id(seed, fs::path(source).filename().string()));
}

// nvcc's output: its own messages, then each step's in nvcc's order up to the first failure,
// whose status is the whole command's.
ProcessResult merge_results(std::string driver_messages, std::initializer_list<const std::vector<ProcessResult>*> groups) {
  std::string out, err = std::move(driver_messages);
  bool truncated = false;
  ProcessResult status;
  status.started = true;
  status.exit_code = 0;
  for (const auto* group : groups) {
    for (const auto& r : *group) {
      out += r.out;
      err += r.err;
      truncated = truncated || r.output_truncated;
      if (!r.ok()) {
        status = r;
        break;
      }
    }
    if (!status.ok()) break;
  }
  status.out = std::move(out);
  status.err = std::move(err);
  status.output_truncated = truncated;
  return status;
}

}  // namespace

ProcessResult run_nvcc_overlapped(const CompilerCommand& command, const std::function<void()>& before_after,
                                  OverlapReport* report) {
  OverlapReport local_report;
  OverlapReport& rep = report ? *report : local_report;
  auto whole = [&](std::string why) {
    rep.overlapped = false;
    rep.why_not = std::move(why);
    if (before_after) before_after();
    return run_compiler(command);
  };
  if (command.argv.empty()) return whole("no command");

  const auto start = Clock::now();
  const Deadline deadline{start + command.timeout};
  CompilerCommand dry = command;
  dry.argv.insert(dry.argv.begin() + 1, "--dryrun");
  ProcessResult plan_run = run_compiler(dry);
  if (plan_run.cancelled) return plan_run;
  if (!plan_run.ok()) return whole("nvcc --dryrun failed: " + plan_run.describe());
  std::string why;
  auto steps = split_nvcc_steps(plan_run.err, &why);
  if (!steps) return whole(why);

  try {
    write_module_id(command, *steps);
  } catch (const std::exception& e) {
    return whole(std::string("cannot write the module id: ") + e.what());
  }
  rep.overlapped = true;

  std::stop_source stop;
  std::stop_callback forward(command.stop, [&stop] { stop.request_stop(); });
  double before_seconds = 0;
  std::vector<ProcessResult> before = run_group(steps->before, command, *steps, deadline, stop.get_token(), &before_seconds);
  std::vector<ProcessResult> host, device, after;
  if (all_ok(before)) {
    std::jthread device_chain(
        [&] { device = run_group(steps->device, command, *steps, deadline, stop.get_token(), &rep.device_seconds); });
    host = run_group(steps->host, command, *steps, deadline, stop.get_token(), &rep.host_seconds);
    // nvcc would not have started the device chain: its output (the same front-end errors) is dropped.
    if (!all_ok(host)) stop.request_stop();
  }
  if (all_ok(before) && all_ok(host) && all_ok(device)) {
    if (before_after) before_after();
    after = run_group(steps->after, command, *steps, deadline, stop.get_token(), &rep.after_seconds);
  }

  ProcessResult status = merge_results(steps->driver_messages, {&before, &host, &device, &after});
  status.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return status;
}

}  // namespace hone::toolchain
