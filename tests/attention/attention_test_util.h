// tests/attention/attention_test_util.h: what the attention tests share: the variants' names, a
// private temporary folder, file and line edits (each asserting that it changed something), and
// `hone check` run on several kernels at once with its JSON verdicts read back.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace hone::attention_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline const fs::path kTasks = HONE_TASKS_DIR;  // tasks/attention
inline const std::vector<std::string> kVariants = {"relative_position", "alibi",       "causal",   "softcap",
                                                   "sliding_window",    "causal_fp32", "prefix_lm"};

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "hone-attention-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// `text` with every `from` replaced by `to`; throws when `from` does not occur (the edit is stale).
inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  std::size_t pos = text.find(from);
  if (pos == std::string::npos) throw std::runtime_error("edit target not found: " + from);
  for (; pos != std::string::npos; pos = text.find(from, pos + to.size())) text.replace(pos, from.size(), to);
  return text;
}

// `text` with the line that starts with `prefix` (e.g. "seq = ") replaced by `line`; throws when
// no line starts so.
inline std::string replace_line(const std::string& text, const std::string& prefix, const std::string& line) {
  std::istringstream in(text);
  std::string out, l;
  bool found = false;
  while (std::getline(in, l)) {
    if (l.rfind(prefix, 0) == 0) {
      l = line;
      found = true;
    }
    out += l + "\n";
  }
  if (!found) throw std::runtime_error("no line starts with `" + prefix + "`");
  return out;
}

// The verdicts of one `hone check --device cpu --json` over `kernels` (one JSON line each).
inline std::vector<json> check_on_cpu(const std::vector<fs::path>& kernels, int timeout_s = 600) {
  ProcessSpec spec;
  spec.argv = {HONE_CLI, "check", "--device", "cpu", "--json", "--baselines", "none"};
  for (const auto& k : kernels) spec.argv.push_back(k.string());
  spec.timeout = std::chrono::seconds(timeout_s);
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.started && !r.timed_out) << r.describe() << "\n" << r.err;
  std::vector<json> verdicts;
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) verdicts.push_back(json::parse(l));
  EXPECT_EQ(verdicts.size(), kernels.size()) << r.describe() << "\nstdout: " << r.out << "\nstderr: " << r.err;
  return verdicts;
}

// "status: reason" of a verdict, for failure messages.
inline std::string summary(const json& v) {
  std::string s = v.value("status", "?");
  if (v.contains("reason") && v["reason"].is_string()) s += ": " + v["reason"].get<std::string>();
  return s;
}

}  // namespace hone::attention_test
