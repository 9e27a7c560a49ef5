// toolchain/machine_listing.cpp: PTX/SASS listings with their source mapping.
#include "toolchain/machine_listing.h"

#include <algorithm>
#include <map>
#include <regex>

#include "support/subprocess.h"
#include "toolchain/build_cache.h"
#include "toolchain/demangle.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

FunctionListing start_function(const std::string& symbol) {
  FunctionListing f;
  f.symbol = symbol;
  f.name = function_base_name(demangle(symbol));
  return f;
}

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && (fs::status(p, ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
}

}  // namespace

std::vector<FunctionListing> ptx_listings(std::string_view ptx) {
  static const std::regex file_re(R"(^\s*\.file\s+(\d+)\s+\"([^\"]*)\")");
  static const std::regex loc_re(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$)");
  static const std::regex inlined_re(R"(inlined_at\s+(\d+)\s+(\d+)\s+\d+)");
  static const std::regex entry_re(R"(^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*))");
  const auto lines = lines_of(ptx);
  std::map<int, std::string> files;
  for (std::string_view l : lines) {
    std::cmatch m;
    if (l.find(".file") != std::string_view::npos && std::regex_search(l.begin(), l.end(), m, file_re))
      files[std::stoi(m[1].str())] = m[2].str();
  }
  std::vector<FunctionListing> out;
  std::optional<FunctionListing> current;
  std::string file;
  int line = 0;
  bool body = false;
  for (std::string_view l : lines) {
    std::cmatch m;
    if (!current) {
      if ((l.find(".entry") != std::string_view::npos || l.find(".func") != std::string_view::npos) &&
          std::regex_search(l.begin(), l.end(), m, entry_re)) {
        current = start_function(m[1].str());
        file.clear();
        line = 0;
        body = false;
        current->lines.push_back({std::string(l), "", 0});
        if (!l.empty() && l.back() == ';') current.reset();
      }
      continue;
    }
    if (!body && l.find('{') != std::string_view::npos) body = true;
    if (!body && !l.empty() && l.back() == ';') {  // a declaration (.extern .func vprintf(...);), not a body
      current.reset();
      continue;
    }
    if (l.find(".loc") != std::string_view::npos && std::regex_search(l.begin(), l.end(), m, loc_re)) {
      int f = std::stoi(m[1].str());
      line = std::stoi(m[2].str());
      const std::string rest = m[3].str();
      std::smatch in;
      if (std::regex_search(rest, in, inlined_re)) {
        f = std::stoi(in[1].str());
        line = std::stoi(in[2].str());
      }
      file = files.count(f) ? files[f] : "";
      continue;
    }
    current->lines.push_back({std::string(l), file, file.empty() ? 0 : line});
    if (l == "}") {
      out.push_back(std::move(*current));
      current.reset();
    }
  }
  if (current) out.push_back(std::move(*current));
  return out;
}

std::vector<FunctionListing> sass_listings(std::string_view text) {
  static const std::regex section_re(R"(^\s*\.text\.([A-Za-z_$][\w$.]*):)");
  static const std::regex file_re(R"(//##\s*File\s*\"([^\"]*)\",\s*line\s*(\d+))");
  std::vector<FunctionListing> out;
  std::string file;
  int line = 0;
  for (std::string_view l : lines_of(text)) {
    std::cmatch m;
    if (std::regex_search(l.begin(), l.end(), m, section_re)) {
      out.push_back(start_function(m[1].str()));
      file.clear();
      line = 0;
      out.back().lines.push_back({std::string(l), "", 0});
      continue;
    }
    if (out.empty()) continue;
    if (l.find("//##") != std::string_view::npos && std::regex_search(l.begin(), l.end(), m, file_re)) {
      file = m[1].str();
      line = std::stoi(m[2].str());
      continue;
    }
    const bool instruction = l.find("/*") != std::string_view::npos && l.find("*/") != std::string_view::npos;
    out.back().lines.push_back({std::string(l), instruction ? file : "", instruction && !file.empty() ? line : 0});
  }
  return out;
}

fs::path build_ptx_path(const fs::path& cache_dir, const std::string& key) {
  return BuildCache(cache_dir / "build").entry_dir(key) / "kernel.ptx";
}

fs::path build_cubin_path(const fs::path& cache_dir, const std::string& key) {
  return BuildCache(cache_dir / "build").entry_dir(key) / "kernel.cubin";
}

std::optional<fs::path> find_nvdisasm(const fs::path& nvcc) {
  fs::path beside = nvcc.parent_path() / "nvdisasm";
  if (executable(beside)) return beside;
  if (auto p = find_program("nvdisasm")) return *p;
  if (executable("/usr/local/cuda/bin/nvdisasm")) return fs::path("/usr/local/cuda/bin/nvdisasm");
  return std::nullopt;
}

const FunctionListing* pick_listing(const std::vector<FunctionListing>& listings, const std::string& name,
                                    const fs::path& file, int source_line) {
  if (listings.empty()) return nullptr;
  if (!name.empty())
    for (const auto& f : listings)
      if (f.name == name) return &f;
  if (source_line > 0) {
    const fs::path want = file.lexically_normal();
    for (const auto& f : listings) {
      int lo = 0, hi = 0;
      for (const auto& l : f.lines) {
        if (l.line <= 0 || fs::path(l.file).lexically_normal() != want) continue;
        lo = lo == 0 ? l.line : std::min(lo, l.line);
        hi = std::max(hi, l.line);
      }
      if (lo > 0 && source_line >= lo - 1 && source_line <= hi) return &f;
    }
  }
  return &listings.front();
}

}  // namespace hone::toolchain
