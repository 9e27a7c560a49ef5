// store/sqlite_db.h: a small RAII layer over SQLite's C API (one connection, prepared statements,
// transactions) for the run store. Errors become std::runtime_error naming the database file,
// the statement and SQLite's message. A SqliteDb is used by one thread at a time (RunStore
// holds a mutex around it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace hone {

class SqliteDb;

// One prepared statement. Bind parameters are 1-based, columns 0-based (as in SQLite).
class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, const std::optional<std::int64_t>& value);
  SqliteStatement& bind(int index, const std::optional<double>& value);
  SqliteStatement& bind_null(int index);

  // Advances to the next row; false when done. Throws on error.
  bool step();
  // Runs a statement that returns no rows.
  void run();

  bool is_null(int column) const;
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<std::int64_t> column_optional_int(int column) const;
  std::optional<double> column_optional_double(int column) const;

 private:
  [[noreturn]] void fail(const std::string& what) const;
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

class SqliteDb {
 public:
  // Opens (creating if needed) the database file; its folder must exist.
  explicit SqliteDb(const std::filesystem::path& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  std::int64_t last_insert_id() const;
  int changes() const;
  const std::filesystem::path& path() const { return path_; }
  sqlite3* handle() { return db_; }
  std::string last_error() const;

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() was called.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace hone
