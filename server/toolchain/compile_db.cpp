// toolchain/compile_db.cpp: compile_commands.json lookup, loading (cached), entry matching and
// the flag filter of a diagnostics build.
#include "toolchain/compile_db.h"

#include <boost/tokenizer.hpp>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <toml++/toml.h>

#include "support/hash.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

struct Entry {
  fs::path file;       // absolute, normalised
  fs::path directory;  // absolute
  std::vector<std::string> argv;
};

struct Database {
  fs::file_time_type mtime;
  std::vector<Entry> entries;
};

fs::path normal(const fs::path& p) { return fs::absolute(p).lexically_normal(); }

std::shared_ptr<const Database> load(const fs::path& path, std::string* error) {
  static std::mutex mutex;
  static std::map<fs::path, std::shared_ptr<const Database>> cache;
  std::error_code ec;
  const auto mtime = fs::last_write_time(path, ec);
  if (ec) {
    if (error) *error = path.string() + ": " + ec.message();
    return nullptr;
  }
  {
    std::lock_guard lock(mutex);
    auto it = cache.find(path);
    if (it != cache.end() && it->second->mtime == mtime) return it->second;
  }
  auto db = std::make_shared<Database>();
  db->mtime = mtime;
  try {
    const nlohmann::json j = nlohmann::json::parse(read_file(path));
    if (!j.is_array()) throw std::runtime_error("not a JSON array of entries");
    for (const auto& e : j) {
      if (!e.is_object() || !e.contains("file") || !e.contains("directory")) continue;
      Entry entry;
      entry.directory = normal(e["directory"].get<std::string>());
      fs::path file = e["file"].get<std::string>();
      entry.file = (file.is_absolute() ? file : entry.directory / file).lexically_normal();
      if (e.contains("arguments") && e["arguments"].is_array()) {
        entry.argv = e["arguments"].get<std::vector<std::string>>();
      } else if (e.contains("command") && e["command"].is_string()) {
        entry.argv = split_command_line(e["command"].get<std::string>());
      }
      if (!entry.argv.empty()) db->entries.push_back(std::move(entry));
    }
  } catch (const std::exception& e) {
    if (error) *error = path.string() + ": " + e.what();
    return nullptr;
  }
  std::lock_guard lock(mutex);
  cache[path] = db;
  return db;
}

// How many leading path components two paths share.
std::size_t common_prefix(const fs::path& a, const fs::path& b) {
  std::size_t n = 0;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end() && *i == *j; ++i, ++j) ++n;
  return n;
}

// Flags whose value is the next word (or joined: -Ifoo, --flag=value).
bool is_include_flag(std::string_view f) {
  return f == "-I" || f == "-isystem" || f == "-iquote" || f == "-idirafter" || f == "--include-path" ||
         f == "--system-include";
}

const std::set<std::string, std::less<>> kDropWithValue = {
    "-o", "--output-file", "-MF", "-MT", "-MQ", "--dependency-output", "--dependency-target-name",
    "-ccbin", "--compiler-bindir", "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
    "--generate-code", "-odir", "--output-directory"};
const std::set<std::string, std::less<>> kDropAlone = {
    "-c", "--compile", "-MD", "-MMD", "-M", "-MM", "-MP", "--generate-dependencies",
    "--generate-nonsystem-dependencies", "--generate-dependencies-with-compile",
    "--generate-nonsystem-dependencies-with-compile", "--generate-dependency-targets"};

}  // namespace

std::vector<std::string> split_command_line(const std::string& command) {
  std::vector<std::string> out;
  try {
    boost::tokenizer<boost::escaped_list_separator<char>> words(command, boost::escaped_list_separator<char>('\\', ' ', '"'));
    for (const auto& w : words)
      if (!w.empty()) out.push_back(w);
  } catch (const boost::escaped_list_error&) {
    out.clear();
    boost::tokenizer<boost::char_separator<char>> words(command, boost::char_separator<char>(" "));
    out.assign(words.begin(), words.end());
  }
  return out;
}

ProjectFlags filter_project_flags(const std::vector<std::string>& argv, const fs::path& directory, const fs::path& source) {
  ProjectFlags out;
  out.directory = directory;
  out.source = source;
  if (argv.empty()) return out;
  out.dropped.push_back(argv[0]);
  auto absolute = [&](const std::string& p) { return (fs::path(p).is_absolute() ? fs::path(p) : directory / p).lexically_normal(); };
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string name = a.substr(0, a.find('='));
    const bool joined = name.size() < a.size();
    if (kDropWithValue.count(name)) {
      out.dropped.push_back(a);
      if (!joined && i + 1 < argv.size()) out.dropped.push_back(argv[++i]);
      continue;
    }
    if (kDropAlone.count(a) || (!a.empty() && a.front() != '-' && absolute(a) == source)) {
      out.dropped.push_back(a);
      continue;
    }
    if (a.starts_with("-MF") || a.starts_with("-MT") || a.starts_with("-MQ") || (a.starts_with("-o") && a.size() > 2 && a != "-odir")) {
      out.dropped.push_back(a);
      continue;
    }
    if (a == "-dc" || a == "--device-c") {  // relocatable device code, compiled: a diagnostics build's -rdc
      out.dropped.push_back(a);
      out.flags.push_back("-rdc=true");
      continue;
    }
    // Include folders: separate or joined, made absolute.
    std::string flag, value;
    if (is_include_flag(name) && (joined || i + 1 < argv.size())) {
      flag = name;
      value = joined ? a.substr(name.size() + 1) : argv[++i];
    } else if (a.starts_with("-I") && a.size() > 2) {
      flag = "-I";
      value = a.substr(2);
    } else if (a.starts_with("-isystem") && a.size() > 8) {
      flag = "-isystem";
      value = a.substr(8);
    }
    if (!flag.empty()) {
      fs::path dir = absolute(value);
      out.include_dirs.push_back(dir);
      if (flag == "--include-path") flag = "-I";
      if (flag == "--system-include") flag = "-isystem";
      out.flags.push_back(flag);
      out.flags.push_back(dir.string());
      continue;
    }
    if ((a == "-include" || a == "--pre-include") && i + 1 < argv.size()) {
      out.flags.push_back(a);
      out.flags.push_back(absolute(argv[++i]).string());
      continue;
    }
    out.flags.push_back(a);
  }
  return out;
}

std::optional<fs::path> find_compile_database(const fs::path& file, const std::optional<fs::path>& configured) {
  std::error_code ec;
  if (configured && !configured->empty()) {
    fs::path c = normal(*configured);
    if (fs::is_directory(c, ec)) c /= "compile_commands.json";
    if (fs::is_regular_file(c, ec)) return c;
    return std::nullopt;
  }
  for (fs::path dir = normal(file).parent_path();; dir = dir.parent_path()) {
    // hone.toml's `compile_commands = "build"` (a file or folder, relative to the hone.toml) names it.
    if (fs::path toml_path = dir / "hone.toml"; fs::is_regular_file(toml_path, ec)) {
      try {
        toml::table t = toml::parse_file(toml_path.string());
        if (auto named = t["compile_commands"].value<std::string>()) {
          fs::path c = (dir / *named).lexically_normal();
          if (fs::is_directory(c, ec)) c /= "compile_commands.json";
          if (fs::is_regular_file(c, ec)) return c;
        }
      } catch (const toml::parse_error&) {
        // task pairing reports a broken hone.toml; here it names nothing
      }
    }
    for (const fs::path& candidate : {dir / "compile_commands.json", dir / "build" / "compile_commands.json"})
      if (fs::is_regular_file(candidate, ec)) return candidate;
    if (dir == dir.root_path() || dir.empty()) break;
  }
  return std::nullopt;
}

std::optional<Includer> find_includer(const fs::path& database, const fs::path& header) {
  auto db = load(normal(database), nullptr);
  if (!db) return std::nullopt;
  const fs::path target = normal(header);
  static const std::regex include_re(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  for (const Entry& e : db->entries) {
    std::string text;
    try {
      text = read_file(e.file);
    } catch (const std::exception&) {
      continue;
    }
    std::vector<fs::path> dirs{e.file.parent_path()};
    for (const auto& d : filter_project_flags(e.argv, e.directory, e.file).include_dirs) dirs.push_back(d);
    int line = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++line;
      std::smatch m;
      const std::string l = text.substr(start, end - start);
      if (l.find("include") != std::string::npos && std::regex_search(l, m, include_re)) {
        for (const auto& d : dirs)
          if ((d / m[1].str()).lexically_normal() == target) return Includer{e.file, line};
      }
      start = end + 1;
    }
  }
  return std::nullopt;
}

std::optional<ProjectFlags> project_flags(const fs::path& database, const fs::path& file, std::string* error) {
  const fs::path db_path = normal(database);
  auto db = load(db_path, error);
  if (!db || db->entries.empty()) return std::nullopt;
  const fs::path target = normal(file);
  const Entry* chosen = nullptr;
  std::string how = "entry";
  std::optional<Includer> includer;
  for (const Entry& e : db->entries)
    if (e.file == target) chosen = &e;
  if (!chosen) {
    if ((includer = find_includer(db_path, target))) {
      for (const Entry& e : db->entries)
        if (e.file == includer->source) chosen = &e;
      if (chosen) how = "includer " + includer->source.string();
    }
  }
  if (!chosen) {
    std::size_t best = 0;
    for (const Entry& e : db->entries) {
      std::size_t n = common_prefix(e.file.parent_path(), target.parent_path());
      if (!chosen || n > best) {
        chosen = &e;
        best = n;
      }
    }
    how = "nearest neighbour " + chosen->file.string();
  }
  ProjectFlags out = filter_project_flags(chosen->argv, chosen->directory, chosen->file);
  out.database = db_path;
  out.how = how;
  if (how.starts_with("includer")) out.includer = includer;
  return out;
}

}  // namespace hone::toolchain
