// optimize/tune_knobs.cpp: parsing `// hone: tune` annotations and rewriting knob values in place.
#include "optimize/tune_knobs.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <stdexcept>

namespace hone {
namespace {

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (true) {
    auto eol = s.find('\n', pos);
    lines.emplace_back(s.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos));
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return lines;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Where a knob's value sits in its line.
struct ValueSpan {
  TuneKnob::Kind kind;
  std::string declared_name;  // empty for pragma unroll / launch bounds
  std::size_t begin = 0, length = 0;
};

// The code part of a line (before a // comment).
std::string code_of(const std::string& line) {
  auto c = line.find("//");
  return c == std::string::npos ? line : line.substr(0, c);
}

std::optional<ValueSpan> find_value(const std::string& line) {
  std::string code = code_of(line);
  std::smatch m;
  static const std::regex define(R"(^\s*#\s*define\s+([A-Za-z_]\w*)\s+(\S(?:.*\S)?)\s*$)");
  static const std::regex constexpr_decl(
      R"(\bconstexpr\s+(?:static\s+)?[A-Za-z_][\w:<>\s]*?\b([A-Za-z_]\w*)\s*(?:=\s*|\{\s*)([^;{}]*?)\s*[;}])");
  static const std::regex unroll(R"(#\s*pragma\s+unroll\s+(\(?\w+\)?))");
  static const std::regex bounds(R"(__launch_bounds__\s*\(\s*([^,)]+?)\s*[,)])");
  if (std::regex_search(code, m, define))
    return ValueSpan{TuneKnob::Kind::Define, m[1], static_cast<std::size_t>(m.position(2)),
                     static_cast<std::size_t>(m.length(2))};
  if (std::regex_search(code, m, constexpr_decl))
    return ValueSpan{TuneKnob::Kind::Constexpr, m[1], static_cast<std::size_t>(m.position(2)),
                     static_cast<std::size_t>(m.length(2))};
  if (std::regex_search(code, m, unroll))
    return ValueSpan{TuneKnob::Kind::PragmaUnroll, "", static_cast<std::size_t>(m.position(1)),
                     static_cast<std::size_t>(m.length(1))};
  if (std::regex_search(code, m, bounds))
    return ValueSpan{TuneKnob::Kind::LaunchBounds, "", static_cast<std::size_t>(m.position(1)),
                     static_cast<std::size_t>(m.length(1))};
  return std::nullopt;
}

}  // namespace

TuneParse parse_tune_knobs(std::string_view source) {
  static const std::regex annotation(R"(//\s*hone:\s*tune\b\s*(.*)$)");
  static const std::regex spec(R"(^([A-Za-z_]\w*)\s*=\s*(.+)$)");
  TuneParse out;
  auto lines = split_lines(source);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, annotation)) continue;
    int ann_line = static_cast<int>(i) + 1;
    std::string where = "line " + std::to_string(ann_line) + ": ";
    std::string text = trim(m[1]);
    std::smatch s;
    if (!std::regex_match(text, s, spec)) {
      out.errors.push_back(where + "expected `// hone: tune NAME=v1,v2,...`, got `" + trim(lines[i]) + "`");
      continue;
    }
    std::string name = s[1];
    std::vector<std::string> declared;
    std::string list = s[2];
    std::size_t p = 0;
    while (p <= list.size()) {
      auto comma = list.find(',', p);
      std::string v = trim(list.substr(p, comma == std::string::npos ? std::string::npos : comma - p));
      if (!v.empty()) declared.push_back(v);
      if (comma == std::string::npos) break;
      p = comma + 1;
    }
    if (declared.empty()) {
      out.errors.push_back(where + "`" + name + "` lists no values");
      continue;
    }
    // The target: this line when it has code before the comment, else the next non-blank line.
    std::size_t target = i;
    if (trim(code_of(lines[i])).empty()) {
      target = i + 1;
      while (target < lines.size() && trim(lines[target]).empty()) ++target;
    }
    auto span = target < lines.size() ? find_value(lines[target]) : std::nullopt;
    if (!span) {
      out.errors.push_back(where + "`hone: tune " + name +
                           "` is not on or just above a #define, constexpr, #pragma unroll or __launch_bounds__ line");
      continue;
    }
    if (!span->declared_name.empty() && span->declared_name != name) {
      out.errors.push_back(where + "`hone: tune " + name + "` annotates `" + span->declared_name + "` (line " +
                           std::to_string(target + 1) + "); the names must match");
      continue;
    }
    if (std::any_of(out.knobs.begin(), out.knobs.end(), [&](const TuneKnob& k) { return k.name == name; })) {
      out.errors.push_back(where + "`" + name + "` is declared tunable twice");
      continue;
    }
    TuneKnob k;
    k.name = name;
    k.kind = span->kind;
    k.line = static_cast<int>(target) + 1;
    k.annotation_line = ann_line;
    k.current = lines[target].substr(span->begin, span->length);
    k.values.push_back(k.current);
    for (const auto& v : declared)
      if (std::find(k.values.begin(), k.values.end(), v) == k.values.end()) k.values.push_back(v);
    out.knobs.push_back(std::move(k));
  }
  return out;
}

std::string apply_knob_values(std::string_view source, const std::vector<TuneKnob>& knobs,
                              const std::map<std::string, std::string>& values) {
  auto lines = split_lines(source);
  for (const auto& [name, value] : values) {
    auto it = std::find_if(knobs.begin(), knobs.end(), [&](const TuneKnob& k) { return k.name == name; });
    if (it == knobs.end()) throw std::invalid_argument("no tunable knob named " + name);
    auto& line = lines[static_cast<std::size_t>(it->line - 1)];
    auto span = find_value(line);
    if (!span) throw std::invalid_argument("knob " + name + ": its line no longer holds a value");
    line.replace(span->begin, span->length, value);
  }
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size()) out.push_back('\n');
  }
  return out;
}

}  // namespace hone
