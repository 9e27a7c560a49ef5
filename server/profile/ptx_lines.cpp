// profile/ptx_lines.cpp: the PTX `.loc`/`.file` reader behind suggestion source lines.
#include "profile/ptx_lines.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

namespace hone::profile {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != ',') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

int to_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : -1;
}

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }

// Element size in bits of a PTX type suffix ("f32", "v4" is handled by the caller); 0 if not a type.
int type_bits(std::string_view t) {
  if (t == "f16x2" || t == "bf16x2") return 32;
  if (t.size() < 2) return 0;
  char c = t.front();
  if (c != 'b' && c != 'u' && c != 's' && c != 'f' && !(t.substr(0, 2) == "bf")) return 0;
  int bits = to_int(t.substr(t.substr(0, 2) == "bf" ? 2 : 1));
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 128 ? bits : 0;
}

// The site an instruction makes, if it is one the rules talk about.
bool classify(std::string_view opcode, bool predicated, InstructionSite& site) {
  std::vector<std::string_view> parts = split(opcode, '.');
  if (parts.empty()) return false;
  if (parts[0] == "bra") {
    // A predicated, non-uniform branch may split a warp; `bra` alone is a jump, `bra.uni` never splits.
    if (!predicated || std::find(parts.begin(), parts.end(), "uni") != parts.end()) return false;
    site.kind = AccessKind::DivergentBranch;
    site.bits = 0;
    return true;
  }
  const bool load = parts[0] == "ld" || parts[0] == "ldu";
  const bool store = parts[0] == "st";
  if (!load && !store) return false;
  int elem = 0, vec = 1;
  enum { none, global, local, shared } space = none;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (p == "global") space = global;
    else if (p == "local") space = local;
    else if (p.substr(0, 6) == "shared") space = shared;
    else if (p.size() == 2 && p[0] == 'v' && (p[1] == '2' || p[1] == '4' || p[1] == '8')) vec = p[1] - '0';
    else if (int b = type_bits(p)) elem = b;
  }
  switch (space) {
    case global: site.kind = load ? AccessKind::GlobalLoad : AccessKind::GlobalStore; break;
    case local: site.kind = load ? AccessKind::LocalLoad : AccessKind::LocalStore; break;
    case shared: site.kind = load ? AccessKind::SharedLoad : AccessKind::SharedStore; break;
    case none: return false;  // generic addressing: the state space is not known statically
  }
  site.bits = elem * vec;
  return true;
}

}  // namespace

std::vector<int> PtxSourceLines::lines(const std::string& mangled, const std::vector<AccessKind>& kinds, int max_bits) const {
  auto it = kernels.find(mangled);
  if (it == kernels.end()) return {};
  std::set<int> out;
  for (const InstructionSite& s : it->second) {
    if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) continue;
    if (max_bits > 0 && (s.bits <= 0 || s.bits > max_bits)) continue;
    out.insert(s.line);
  }
  return {out.begin(), out.end()};
}

PtxSourceLines parse_ptx_source_lines(std::string_view ptx, const std::string& user_file) {
  PtxSourceLines out;
  if (user_file.empty()) return out;
  const std::string user = normal(user_file);
  std::vector<std::string_view> text = split(ptx, '\n');

  // The `.file` table comes after the code; read it first.
  std::set<int> user_ids;
  for (std::string_view raw : text) {
    std::string_view l = trim(raw);
    if (l.substr(0, 5) != ".file" || l.size() < 6 || (l[5] != ' ' && l[5] != '\t')) continue;
    std::size_t q1 = l.find('"'), q2 = l.find('"', q1 + 1);
    if (q1 == std::string_view::npos || q2 == std::string_view::npos) continue;
    std::vector<std::string_view> w = words(l.substr(0, q1));
    if (w.size() == 2 && normal(std::string(l.substr(q1 + 1, q2 - q1 - 1))) == user) user_ids.insert(to_int(w[1]));
  }
  if (user_ids.empty()) return out;

  std::string kernel;  // the `.entry` being read; empty outside kernels (and in `.func` bodies)
  bool pending_entry = false;
  int depth = 0;
  int line = 0;  // the current user-file line; 0 when the current `.loc` is elsewhere
  for (std::string_view raw : text) {
    std::string_view l = trim(raw);
    if (l.empty() || l.substr(0, 2) == "//") continue;
    if (depth == 0) {
      std::size_t e = l.find(".entry");
      if (e != std::string_view::npos && (e + 6 == l.size() || l[e + 6] == ' ' || l[e + 6] == '\t')) {
        std::string_view rest = trim(l.substr(e + 6));
        kernel = std::string(rest.substr(0, rest.find_first_of("( \t")));
        pending_entry = true;
      } else if (l.find(".func") != std::string_view::npos) {
        kernel.clear();
        pending_entry = true;
      }
    }
    int before = depth;
    for (char c : l) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (pending_entry && depth > 0) pending_entry = false, line = 0;
    if (before > 0 && depth == 0) kernel.clear();
    if (kernel.empty() || before == 0) continue;

    if (l.substr(0, 4) == ".loc") {
      std::vector<std::string_view> w = words(l);
      line = 0;
      if (w.size() >= 3 && user_ids.count(to_int(w[1]))) line = to_int(w[2]);
      auto in = std::find(w.begin(), w.end(), "inlined_at");
      if (line <= 0 && in != w.end() && in + 2 < w.end() && user_ids.count(to_int(*(in + 1)))) line = to_int(*(in + 2));
      continue;
    }
    if (line <= 0 || l.front() == '.' || l.front() == '$' || l.front() == '{' || l.front() == '}') continue;
    bool predicated = l.front() == '@';
    if (predicated) {
      std::size_t sp = l.find_first_of(" \t");
      if (sp == std::string_view::npos) continue;
      l = trim(l.substr(sp));
    }
    InstructionSite site;
    site.line = line;
    if (classify(l.substr(0, l.find_first_of(" \t;")), predicated, site)) out.kernels[kernel].push_back(site);
  }
  return out;
}

}  // namespace hone::profile
