// cluster/slurm_executor.h: runs batches of checks as Slurm jobs. Each job (sbatch) runs
// `hone run-batch IN OUT` on a node, which appends one JSON line to OUT as each of its checks
// finishes; the executor reads those lines as they appear (a shared folder, as every Slurm
// cluster has) and follows each job with scontrol/squeue. A job that ends before all its checks
// reported (cancelled, preempted, its node died, out of time) has the missing checks re-queued in
// a new job, at most max_attempts jobs per check; past that the check's outcome says what
// happened. Knows nothing of verdicts: items are opaque JSON (the engine writes and reads them).
// Called by the engine (engine/check_many.cpp) from one thread per run; run() blocks.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::cluster {

struct SlurmSettings {
  std::string partition;                // empty: the cluster's default
  std::string account;
  std::string time_limit = "00:30:00";  // --time of one job
  std::string gres;                     // --gres ("gpu:1"); empty: none
  int batch_size = 4;                   // checks per job
  int max_attempts = 3;                 // jobs a check may take
  std::vector<std::string> extra_args;  // more sbatch arguments
  std::filesystem::path hone;           // the hone binary a job runs
  std::filesystem::path work_dir;       // batch, output and log files (on a shared file system)
  std::filesystem::path chdir;          // the job's working directory (the workspace)
  nlohmann::json options;               // the engine options a job's hone runs with
  std::chrono::milliseconds poll{200};
};

// One check to run: an id unique in the run and the request as JSON.
struct BatchItem {
  std::string id;
  nlohmann::json request;
};

// What became of one item.
struct ItemOutcome {
  std::string id;
  std::optional<nlohmann::json> result;  // the line's "verdict" (or "error") object, when the job reported it
  std::string job_id;                    // the job that reported it, or the last one tried
  std::string node;
  int attempts = 0;                      // jobs it was submitted in
  std::string failure;                   // set when no job reported it: what happened to the jobs
  std::vector<std::string> history;      // "job 12: CANCELLED", one per job that ended without it
};

// sbatch failed, or Slurm cannot be reached.
class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether a Slurm controller answers here (`sinfo` succeeds); why not, when it does not.
std::optional<std::string> slurm_unavailable();

class SlurmExecutor {
 public:
  explicit SlurmExecutor(SlurmSettings settings);

  // Submits the items in jobs of batch_size and calls on_outcome once per item, as each finishes
  // (on this thread). Returns when every item has an outcome; a stop request cancels the jobs
  // (scancel) and returns without outcomes for the rest. Throws SlurmError when sbatch fails.
  void run(const std::vector<BatchItem>& items, std::stop_token stop,
           const std::function<void(const ItemOutcome&)>& on_outcome);

  // Job ids submitted so far (tests cancel one of them).
  std::vector<std::string> submitted() const;
  // Called with each job id right after its submission (tests; any thread-safe callback).
  std::function<void(const std::string& job_id)> on_submit;

 private:
  struct Job;
  std::string submit(Job& job);
  // The job's request file and its script (`hone run-batch IN OUT`) in the work folder.
  void write_batch(Job& job, const std::vector<BatchItem>& items);
  // The verdict lines the job appended since the last look: each reported item is `finish`ed.
  static void read_new_lines(Job& job, const std::vector<BatchItem>& items, std::vector<ItemOutcome>& outcomes,
                             const std::function<void(std::size_t)>& finish);

  SlurmSettings settings_;
  std::vector<std::string> submitted_;
  int next_batch_ = 0;
};

// The job's state from `scontrol show job -o ID` ("RUNNING", "CANCELLED", ...; "" when unknown)
// and its node list.
struct JobState {
  std::string state;
  std::string nodes;
  std::string reason;
};
JobState job_state(const std::string& job_id);
// Whether a state is final (the job will not report any more lines).
bool job_finished(const std::string& state);

}  // namespace hone::cluster
