// store/sqlite_db.cpp: SqliteDb, SqliteStatement and SqliteTransaction over the SQLite C API.
#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <stdexcept>

namespace hone {

SqliteDb::SqliteDb(const std::filesystem::path& path) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("cannot open the store " + path.string() + ": " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::exec(std::string_view sql) {
  std::string text(sql);
  char* err = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : last_error();
    sqlite3_free(err);
    throw std::runtime_error("store " + path_.string() + ": " + msg + " (in: " + text.substr(0, 120) + ")");
  }
}

std::int64_t SqliteDb::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDb::changes() const { return sqlite3_changes(db_); }
std::string SqliteDb::last_error() const { return sqlite3_errmsg(db_); }

SqliteStatement::SqliteStatement(SqliteDb& db, std::string_view sql) : db_(db), sql_(sql) {
  if (sqlite3_prepare_v2(db.handle(), sql_.data(), static_cast<int>(sql_.size()), &stmt_, nullptr) != SQLITE_OK)
    fail("prepare");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

void SqliteStatement::fail(const std::string& what) const {
  throw std::runtime_error("store " + db_.path().string() + ": " + what + " failed: " + db_.last_error() +
                           " (in: " + sql_.substr(0, 120) + ")");
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail("bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail("bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
    fail("bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, const std::optional<std::int64_t>& value) {
  return value ? bind(index, *value) : bind_null(index);
}

SqliteStatement& SqliteStatement::bind(int index, const std::optional<double>& value) {
  return value ? bind(index, *value) : bind_null(index);
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail("bind");
  return *this;
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail("step");
}

void SqliteStatement::run() {
  while (step()) {
  }
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
std::int64_t SqliteStatement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }
double SqliteStatement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string SqliteStatement::column_text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::optional<std::int64_t> SqliteStatement::column_optional_int(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int(column);
}

std::optional<double> SqliteStatement::column_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_double(column);
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace hone
