// store/run_store.h: hone's SQLite store (<workspace>/.hone/hone.db): optimizer runs and every
// candidate they tried (source, lineage, prompt, reply, reasoning, verdict), so runs can be
// listed (`hone runs`), resumed after a crash (`hone optimize --resume`) and exported
// (`hone export`). WAL mode, one transaction per write, a schema version (PRAGMA user_version).
// Verdicts are stored as their JSON (protocol/verdict.h) and typed again when read.
// Called by the optimizer loop from its sample threads and by the CLI; all methods are
// thread-safe (one connection behind a mutex; other processes may use the same file).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/optimize_result.h"
#include "protocol/verdict.h"

namespace hone {

class SqliteDb;

inline constexpr int kStoreSchemaVersion = 1;

struct RunRecord {
  std::int64_t id = 0;
  std::string kernel_path;
  std::string task_path;
  std::string device;                  // "cpu" | "cuda"
  std::string proposer;                // "llm" | "tuner"
  nlohmann::json config = nlohmann::json::object();  // the run's options; never a secret
  std::string base_source;             // the kernel as it was when the run began
  std::string status = "running";      // running | finished | interrupted | failed
  std::string error;                   // why a failed run failed
  std::string created_at;              // ISO 8601 UTC, set by the store
  std::string updated_at;
  double elapsed_s = 0;                // wall time spent over all sessions of the run
  int rounds_done = 0;
  std::optional<std::int64_t> best_candidate;
  nlohmann::json summary = nlohmann::json::object();  // counts by status, tokens, cost, best
};

using protocol::CandidateUsage;

struct CandidateRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::optional<std::int64_t> parent_id;
  int round = 0;
  int sample = 0;
  std::string origin;        // "baseline" | "llm" | "tuner"
  std::string source;        // the full kernel source that was (or will be) verified
  nlohmann::json config = nlohmann::json::object();  // tuner knobs and flags, or model settings
  nlohmann::json prompt = nlohmann::json::array();   // chat messages sent [{role, content}]
  std::string reply;         // the model's answer (without reasoning)
  std::string reasoning;     // the model's reasoning (reasoning_content or <think>)
  // pending (saved, not yet verified) | a verdict status (correct, incorrect, compile_error,
  // runtime_error, timeout, rejected) | no_code | llm_error | cancelled
  std::string status = "pending";
  std::string reason;
  std::optional<protocol::Verdict> verdict;  // nullopt until verified
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  std::optional<bool> recheck_passed;  // the winner's re-verification on fresh seeds
  CandidateUsage usage;
  double llm_seconds = 0;
  double check_seconds = 0;
  std::string created_at;
};

// What verification (or a failure before it) decided about one candidate.
struct CandidateOutcome {
  std::string status;
  std::string reason;
  std::optional<protocol::Verdict> verdict;  // nullopt when verification gave none
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  double check_seconds = 0;
};

class RunStore {
 public:
  // Opens or creates the store file (and its folder); migrates an older schema; throws
  // std::runtime_error naming the file when it cannot, or when a newer hone wrote it.
  explicit RunStore(const std::filesystem::path& db_path);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // <workspace>/.hone/hone.db
  static std::filesystem::path default_path(const std::filesystem::path& workspace);

  std::int64_t create_run(const RunRecord& run);
  // Saves progress: elapsed time, rounds, best candidate, summary, status.
  void update_run(const RunRecord& run);
  std::optional<RunRecord> run(std::int64_t id);
  // Most recent first; limit 0 means all.
  std::vector<RunRecord> runs(int limit = 0);

  std::int64_t add_candidate(const CandidateRecord& candidate);
  void record_outcome(std::int64_t candidate_id, const CandidateOutcome& outcome);
  void record_recheck(std::int64_t candidate_id, bool passed, const protocol::Verdict& verdict);
  // In insertion order.
  std::vector<CandidateRecord> candidates(std::int64_t run_id);
  std::optional<CandidateRecord> candidate(std::int64_t id);

  int schema_version();
  const std::filesystem::path& path() const { return path_; }

 private:
  void migrate();
  std::filesystem::path path_;
  std::unique_ptr<SqliteDb> db_;
  std::mutex mutex_;
};

// The current time as ISO 8601 UTC with milliseconds ("2026-11-29T16:20:00.123Z").
std::string utc_timestamp();

}  // namespace hone
