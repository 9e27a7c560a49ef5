// toolchain/compile_db.h: a project's compile database (compile_commands.json, as CMake writes it
// with CMAKE_EXPORT_COMPILE_COMMANDS=ON) and the flags hone builds one of its files with. Found
// walking up from the file as clangd does (each folder and its build/ subfolder), or given. A file
// with no entry borrows the flags of its folder's nearest neighbour; a header (.cuh) is compiled
// through a source that includes it. Loaded databases are cached by path and modification time;
// any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hone::toolchain {

// For a header: the project source that includes it, and the line (1-based) of its #include.
struct Includer {
  std::filesystem::path source;
  int line = 0;
};

// The flags of one file's build in its project.
struct ProjectFlags {
  std::filesystem::path database;   // compile_commands.json
  std::filesystem::path directory;  // the entry's working directory (relative paths were resolved against it)
  std::filesystem::path source;     // the entry's file (another file's when borrowed)
  std::string how;                  // "entry", "nearest neighbour <file>", "includer <file>"
  std::vector<std::string> flags;   // passed on to the compiler: -I/-isystem absolute, -D, -std, --expt-*, -rdc ...
  std::vector<std::string> dropped; // what a diagnostics build leaves out: the compiler, -o X, -c, the
                                    // source, dependency files, -ccbin, the architectures (hone builds
                                    // for the local GPU's)
  std::vector<std::filesystem::path> include_dirs;  // absolute folders of -I, -isystem, -iquote ...
  std::optional<Includer> includer;                  // a header without an entry: the source it is compiled through
};

// The compile_commands.json for `file`: `configured` when given (a file, or a folder holding one),
// else the first found walking up from the file's folder, looking in each folder for a hone.toml
// naming one (`compile_commands = "build"`), then compile_commands.json, then build/compile_commands.json.
std::optional<std::filesystem::path> find_compile_database(const std::filesystem::path& file,
                                                           const std::optional<std::filesystem::path>& configured = {});

// The flags `file` builds with in the database: its own entry, else (a header) the entry of a
// source that includes it, else its folder's nearest neighbour (the entry whose file shares the
// longest folder prefix with it). nullopt when the database has no entries or cannot be read;
// `error` (optional) says why it could not be read.
std::optional<ProjectFlags> project_flags(const std::filesystem::path& database, const std::filesystem::path& file,
                                          std::string* error = nullptr);

// The database's source that includes `header` (by an #include whose name resolves to it against
// the source's folder or its include folders), with the include's line. nullopt when none does.
std::optional<Includer> find_includer(const std::filesystem::path& database, const std::filesystem::path& header);

// An entry's argv (the compiler first) reduced to the flags a diagnostics build keeps, relative
// include folders made absolute against `directory`. Exposed for tests.
ProjectFlags filter_project_flags(const std::vector<std::string>& argv, const std::filesystem::path& directory,
                                  const std::filesystem::path& source);

// A shell command line ("command" entries) split into words: spaces separate, quotes group, a
// backslash escapes.
std::vector<std::string> split_command_line(const std::string& command);

}  // namespace hone::toolchain
