// store/run_store.cpp: the runs/candidates schema, its migration, and the queries behind RunStore.
#include "store/run_store.h"

#include <chrono>
#include <ctime>
#include <stdexcept>

#include "store/sqlite_db.h"

namespace hone {
namespace {

// Version 1 of the schema. A later version adds a step to migrate() instead of editing this.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kernel_path TEXT NOT NULL,
  task_path TEXT NOT NULL,
  device TEXT NOT NULL,
  proposer TEXT NOT NULL,
  config TEXT NOT NULL,
  base_source TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  elapsed_s REAL NOT NULL DEFAULT 0,
  rounds_done INTEGER NOT NULL DEFAULT 0,
  best_candidate INTEGER,
  summary TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE candidates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES candidates(id),
  round INTEGER NOT NULL,
  sample INTEGER NOT NULL,
  origin TEXT NOT NULL,
  source TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  prompt TEXT NOT NULL DEFAULT '[]',
  reply TEXT NOT NULL DEFAULT '',
  reasoning TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  verdict TEXT,
  p50_us REAL,
  speedup_eager REAL,
  speedup_compile REAL,
  recheck_passed INTEGER,
  recheck_verdict TEXT,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  usage_estimated INTEGER NOT NULL DEFAULT 0,
  llm_seconds REAL NOT NULL DEFAULT 0,
  check_seconds REAL NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  verified_at TEXT
);
CREATE INDEX candidates_by_run ON candidates(run_id, id);
)sql";

constexpr const char* kRunColumns =
    "id, kernel_path, task_path, device, proposer, config, base_source, status, error, created_at, "
    "updated_at, elapsed_s, rounds_done, best_candidate, summary";

constexpr const char* kCandidateColumns =
    "id, run_id, parent_id, round, sample, origin, source, config, prompt, reply, reasoning, status, reason, "
    "verdict, p50_us, speedup_eager, speedup_compile, recheck_passed, prompt_tokens, completion_tokens, "
    "reasoning_tokens, cost_usd, usage_estimated, llm_seconds, check_seconds, created_at";

nlohmann::json parse_json_column(const SqliteStatement& s, int column, const std::string& what) {
  if (s.is_null(column)) return nullptr;
  try {
    return nlohmann::json::parse(s.column_text(column));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("store: the " + what + " column holds invalid JSON: " + e.what());
  }
}

RunRecord read_run(const SqliteStatement& s) {
  RunRecord r;
  r.id = s.column_int(0);
  r.kernel_path = s.column_text(1);
  r.task_path = s.column_text(2);
  r.device = s.column_text(3);
  r.proposer = s.column_text(4);
  r.config = parse_json_column(s, 5, "runs.config");
  r.base_source = s.column_text(6);
  r.status = s.column_text(7);
  r.error = s.column_text(8);
  r.created_at = s.column_text(9);
  r.updated_at = s.column_text(10);
  r.elapsed_s = s.column_double(11);
  r.rounds_done = static_cast<int>(s.column_int(12));
  r.best_candidate = s.column_optional_int(13);
  r.summary = parse_json_column(s, 14, "runs.summary");
  return r;
}

// A verdict column: nullopt when NULL; a stored verdict that does not parse names its row.
std::optional<protocol::Verdict> verdict_column(const SqliteStatement& s, int column, std::int64_t candidate_id) {
  nlohmann::json j = parse_json_column(s, column, "candidates.verdict");
  if (j.is_null()) return std::nullopt;
  try {
    return j.get<protocol::Verdict>();
  } catch (const std::exception& e) {
    throw std::runtime_error("store: the verdict of candidate " + std::to_string(candidate_id) + " is not a verdict: " + e.what());
  }
}

CandidateRecord read_candidate(const SqliteStatement& s) {
  CandidateRecord c;
  c.id = s.column_int(0);
  c.run_id = s.column_int(1);
  c.parent_id = s.column_optional_int(2);
  c.round = static_cast<int>(s.column_int(3));
  c.sample = static_cast<int>(s.column_int(4));
  c.origin = s.column_text(5);
  c.source = s.column_text(6);
  c.config = parse_json_column(s, 7, "candidates.config");
  c.prompt = parse_json_column(s, 8, "candidates.prompt");
  c.reply = s.column_text(9);
  c.reasoning = s.column_text(10);
  c.status = s.column_text(11);
  c.reason = s.column_text(12);
  c.verdict = verdict_column(s, 13, c.id);
  c.p50_us = s.column_optional_double(14);
  c.speedup_eager = s.column_optional_double(15);
  c.speedup_compile = s.column_optional_double(16);
  if (auto v = s.column_optional_int(17)) c.recheck_passed = *v != 0;
  c.usage.prompt_tokens = s.column_int(18);
  c.usage.completion_tokens = s.column_int(19);
  c.usage.reasoning_tokens = s.column_int(20);
  c.usage.cost_usd = s.column_double(21);
  c.usage.estimated = s.column_int(22) != 0;
  c.llm_seconds = s.column_double(23);
  c.check_seconds = s.column_double(24);
  c.created_at = s.column_text(25);
  return c;
}

std::string json_text(const nlohmann::json& j) {
  // Candidate text from a model may hold invalid UTF-8: replace it rather than fail the write.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

std::filesystem::path RunStore::default_path(const std::filesystem::path& workspace) {
  return workspace / ".hone" / "hone.db";
}

RunStore::RunStore(const std::filesystem::path& db_path) : path_(db_path) {
  std::error_code ec;
  if (db_path.has_parent_path()) std::filesystem::create_directories(db_path.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create the store folder " + db_path.parent_path().string() + ": " + ec.message());
  db_ = std::make_unique<SqliteDb>(db_path);
  db_->exec("PRAGMA busy_timeout = 10000");
  db_->exec("PRAGMA journal_mode = WAL");
  db_->exec("PRAGMA synchronous = NORMAL");
  db_->exec("PRAGMA foreign_keys = ON");
  migrate();
}

RunStore::~RunStore() = default;

int RunStore::schema_version() {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.column_int(0));
}

void RunStore::migrate() {
  SqliteTransaction tx(*db_);
  int version = 0;
  {
    SqliteStatement s(*db_, "PRAGMA user_version");
    s.step();
    version = static_cast<int>(s.column_int(0));
  }
  if (version > kStoreSchemaVersion)
    throw std::runtime_error("the store " + path_.string() + " has schema version " + std::to_string(version) +
                             ", newer than this hone understands (" + std::to_string(kStoreSchemaVersion) +
                             "); use a newer hone or another workspace");
  if (version == 0) {
    db_->exec(kSchemaV1);
    db_->exec("PRAGMA user_version = 1");
  }
  tx.commit();
}

std::int64_t RunStore::create_run(const RunRecord& run) {
  std::lock_guard lock(mutex_);
  std::string now = utc_timestamp();
  SqliteStatement s(*db_,
                    "INSERT INTO runs (kernel_path, task_path, device, proposer, config, base_source, status, error, "
                    "created_at, updated_at, elapsed_s, rounds_done, best_candidate, summary) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13)");
  s.bind(1, run.kernel_path).bind(2, run.task_path).bind(3, run.device).bind(4, run.proposer);
  s.bind(5, json_text(run.config)).bind(6, run.base_source).bind(7, run.status).bind(8, run.error);
  s.bind(9, now).bind(10, run.elapsed_s).bind(11, static_cast<std::int64_t>(run.rounds_done));
  s.bind(12, run.best_candidate).bind(13, json_text(run.summary));
  s.run();
  return db_->last_insert_id();
}

void RunStore::update_run(const RunRecord& run) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_,
                    "UPDATE runs SET status = ?2, error = ?3, updated_at = ?4, elapsed_s = ?5, rounds_done = ?6, "
                    "best_candidate = ?7, summary = ?8 WHERE id = ?1");
  s.bind(1, run.id).bind(2, run.status).bind(3, run.error).bind(4, utc_timestamp()).bind(5, run.elapsed_s);
  s.bind(6, static_cast<std::int64_t>(run.rounds_done)).bind(7, run.best_candidate).bind(8, json_text(run.summary));
  s.run();
  if (db_->changes() != 1) throw std::runtime_error("store " + path_.string() + ": no run " + std::to_string(run.id));
}

std::optional<RunRecord> RunStore::run(std::int64_t id) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::vector<RunRecord> RunStore::runs(int limit) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id DESC LIMIT ?1");
  s.bind(1, static_cast<std::int64_t>(limit > 0 ? limit : -1));
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

std::int64_t RunStore::add_candidate(const CandidateRecord& c) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_,
                    "INSERT INTO candidates (run_id, parent_id, round, sample, origin, source, config, prompt, reply, "
                    "reasoning, status, reason, verdict, p50_us, speedup_eager, speedup_compile, prompt_tokens, "
                    "completion_tokens, reasoning_tokens, cost_usd, usage_estimated, llm_seconds, check_seconds, "
                    "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                    "?18, ?19, ?20, ?21, ?22, ?23, ?24)");
  s.bind(1, c.run_id).bind(2, c.parent_id).bind(3, static_cast<std::int64_t>(c.round));
  s.bind(4, static_cast<std::int64_t>(c.sample)).bind(5, c.origin).bind(6, c.source).bind(7, json_text(c.config));
  s.bind(8, json_text(c.prompt)).bind(9, c.reply).bind(10, c.reasoning).bind(11, c.status).bind(12, c.reason);
  if (c.verdict)
    s.bind(13, json_text(*c.verdict));
  else
    s.bind_null(13);
  s.bind(14, c.p50_us).bind(15, c.speedup_eager).bind(16, c.speedup_compile);
  s.bind(17, c.usage.prompt_tokens).bind(18, c.usage.completion_tokens).bind(19, c.usage.reasoning_tokens);
  s.bind(20, c.usage.cost_usd).bind(21, static_cast<std::int64_t>(c.usage.estimated ? 1 : 0));
  s.bind(22, c.llm_seconds).bind(23, c.check_seconds).bind(24, utc_timestamp());
  try {
    s.run();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (adding a candidate to run " + std::to_string(c.run_id) + ")");
  }
  return db_->last_insert_id();
}

void RunStore::record_outcome(std::int64_t candidate_id, const CandidateOutcome& o) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_,
                    "UPDATE candidates SET status = ?2, reason = ?3, verdict = ?4, p50_us = ?5, speedup_eager = ?6, "
                    "speedup_compile = ?7, check_seconds = ?8, verified_at = ?9 WHERE id = ?1");
  s.bind(1, candidate_id).bind(2, o.status).bind(3, o.reason);
  if (o.verdict)
    s.bind(4, json_text(*o.verdict));
  else
    s.bind_null(4);
  s.bind(5, o.p50_us).bind(6, o.speedup_eager).bind(7, o.speedup_compile).bind(8, o.check_seconds);
  s.bind(9, utc_timestamp());
  s.run();
  if (db_->changes() != 1)
    throw std::runtime_error("store " + path_.string() + ": no candidate " + std::to_string(candidate_id));
}

void RunStore::record_recheck(std::int64_t candidate_id, bool passed, const protocol::Verdict& verdict) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "UPDATE candidates SET recheck_passed = ?2, recheck_verdict = ?3 WHERE id = ?1");
  s.bind(1, candidate_id).bind(2, static_cast<std::int64_t>(passed ? 1 : 0)).bind(3, json_text(verdict));
  s.run();
}

std::vector<CandidateRecord> RunStore::candidates(std::int64_t run_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kCandidateColumns + " FROM candidates WHERE run_id = ?1 ORDER BY id");
  s.bind(1, run_id);
  std::vector<CandidateRecord> out;
  while (s.step()) out.push_back(read_candidate(s));
  return out;
}

std::optional<CandidateRecord> RunStore::candidate(std::int64_t id) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kCandidateColumns + " FROM candidates WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_candidate(s);
}

}  // namespace hone
