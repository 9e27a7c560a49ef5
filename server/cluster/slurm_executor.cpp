// cluster/slurm_executor.cpp: sbatch, the output lines of running jobs, and re-queueing the checks
// of jobs that ended without them.
#include "cluster/slurm_executor.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>

#include <unistd.h>

#include "support/hash.h"
#include "support/subprocess.h"

namespace hone::cluster {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

ProcessResult slurm_command(std::vector<std::string> argv, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = timeout;
  return run_process(spec);
}

// "KEY=VALUE" from scontrol's one-line output.
std::string field(const std::string& line, const std::string& key) {
  const std::string needle = key + "=";
  for (std::size_t at = line.find(needle); at != std::string::npos; at = line.find(needle, at + 1)) {
    if (at != 0 && line[at - 1] != ' ') continue;
    std::size_t start = at + needle.size();
    return line.substr(start, line.find(' ', start) - start);
  }
  return {};
}

// Why an item has no verdict after its last attempt: each job's fate, and the last job's log.
std::string no_verdict_text(const ItemOutcome& o, const std::filesystem::path& log_path) {
  std::string text = "no verdict after " + std::to_string(o.attempts) + " Slurm job(s): ";
  for (std::size_t h = 0; h < o.history.size(); ++h) text += (h ? "; " : "") + o.history[h];
  if (std::filesystem::exists(log_path)) {
    std::string log = read_file(log_path);
    if (log.size() > 2000) log = log.substr(log.size() - 2000);
    if (!log.empty()) text += "\nlast job's log (" + log_path.string() + "):\n" + log;
  }
  return text;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::optional<std::string> slurm_unavailable() {
  if (!find_program("sbatch") || !find_program("sinfo")) return "Slurm's commands (sbatch, sinfo) are not on PATH";
  ProcessResult r = slurm_command({"sinfo", "-h", "-o", "%T"}, std::chrono::seconds(10));
  if (!r.ok()) return "sinfo failed (" + r.describe() + "): " + r.err;
  if (r.out.find_first_not_of(" \n") == std::string::npos) return "sinfo lists no node";
  return std::nullopt;
}

JobState job_state(const std::string& job_id) {
  JobState s;
  ProcessResult r = slurm_command({"scontrol", "-o", "show", "job", job_id}, std::chrono::seconds(10));
  if (r.ok()) {
    s.state = field(r.out, "JobState");
    s.nodes = field(r.out, "NodeList");
    s.reason = field(r.out, "Reason");
    if (s.nodes == "(null)") s.nodes.clear();
    return s;
  }
  // Gone from the controller's memory (past MinJobAge): ask accounting, when there is one.
  ProcessResult acct = slurm_command({"sacct", "-n", "-X", "-P", "-o", "State,NodeList", "-j", job_id});
  if (acct.ok() && !acct.out.empty()) {
    std::string line = acct.out.substr(0, acct.out.find('\n'));
    s.state = line.substr(0, line.find_first_of(" |"));
    if (auto bar = line.find('|'); bar != std::string::npos) s.nodes = line.substr(bar + 1);
  } else {
    s.state = "GONE";
  }
  return s;
}

bool job_finished(const std::string& state) {
  static const std::set<std::string> active = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                                               "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD",
                                               "REQUEUE_FED", "RESV_DEL_HOLD", "STOPPED"};
  return !state.empty() && !active.count(state);
}

struct SlurmExecutor::Job {
  std::string id;  // Slurm's
  std::vector<std::size_t> items;
  std::filesystem::path in, out, script, log;
  std::size_t read_bytes = 0;
  std::string partial;  // an unfinished last line
  std::set<std::size_t> reported;
  Clock::time_point last_poll{};
};

SlurmExecutor::SlurmExecutor(SlurmSettings settings) : settings_(std::move(settings)) {
  settings_.batch_size = std::max(settings_.batch_size, 1);
  settings_.max_attempts = std::max(settings_.max_attempts, 1);
}

std::vector<std::string> SlurmExecutor::submitted() const { return submitted_; }

std::string SlurmExecutor::submit(Job& job) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=hone-checks", "--output=" + job.log.string(),
                                   "--ntasks=1", "--time=" + settings_.time_limit};
  if (!settings_.partition.empty()) argv.push_back("--partition=" + settings_.partition);
  if (!settings_.account.empty()) argv.push_back("--account=" + settings_.account);
  if (!settings_.gres.empty()) argv.push_back("--gres=" + settings_.gres);
  if (!settings_.chdir.empty()) argv.push_back("--chdir=" + settings_.chdir.string());
  argv.insert(argv.end(), settings_.extra_args.begin(), settings_.extra_args.end());
  argv.push_back(job.script.string());
  ProcessResult r = slurm_command(argv);
  if (!r.ok()) {
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
    throw SlurmError("sbatch failed (" + r.describe() + "): " + command + "\n" + r.err);
  }
  std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  submitted_.push_back(id);
  if (on_submit) on_submit(id);
  return id;
}

void SlurmExecutor::write_batch(Job& job, const std::vector<BatchItem>& items) {
  const std::string stem = "batch-" + std::to_string(::getpid()) + "-" + std::to_string(next_batch_++);
  job.in = settings_.work_dir / (stem + ".json");
  job.out = settings_.work_dir / (stem + ".out.jsonl");
  job.script = settings_.work_dir / (stem + ".sh");
  job.log = settings_.work_dir / (stem + ".log");
  json in{{"options", settings_.options}, {"items", json::array()}};
  for (std::size_t i : job.items) in["items"].push_back({{"id", items[i].id}, {"request", items[i].request}});
  write_file_atomic(job.in, in.dump() + "\n");
  write_file_atomic(job.script, "#!/bin/sh\n# hone: a batch of checks (cluster/slurm_executor)\nexec " +
                                    shell_quote(settings_.hone.string()) + " run-batch " + shell_quote(job.in.string()) +
                                    " " + shell_quote(job.out.string()) + "\n");
  std::filesystem::permissions(job.script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
}

void SlurmExecutor::read_new_lines(Job& job, const std::vector<BatchItem>& items, std::vector<ItemOutcome>& outcomes,
                                   const std::function<void(std::size_t)>& finish) {
  std::ifstream f(job.out, std::ios::binary);
  if (!f) return;
  f.seekg(static_cast<std::streamoff>(job.read_bytes));
  std::string chunk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  job.read_bytes += chunk.size();
  job.partial += chunk;
  for (std::size_t nl = job.partial.find('\n'); nl != std::string::npos; nl = job.partial.find('\n')) {
    std::string line = job.partial.substr(0, nl);
    job.partial.erase(0, nl + 1);
    json j = json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    const std::string id = j.value("id", std::string());
    for (std::size_t i : job.items) {
      if (items[i].id != id || job.reported.count(i)) continue;
      job.reported.insert(i);
      ItemOutcome& o = outcomes[i];
      o.job_id = job.id;
      o.node = j.value("node", std::string());
      if (j.contains("verdict")) o.result = j["verdict"];
      else if (j.contains("error")) o.result = json{{"error", j["error"]}};
      finish(i);
    }
  }
}

void SlurmExecutor::run(const std::vector<BatchItem>& items, std::stop_token stop,
                        const std::function<void(const ItemOutcome&)>& on_outcome) {
  std::filesystem::create_directories(settings_.work_dir);
  std::vector<ItemOutcome> outcomes(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) outcomes[i].id = items[i].id;
  std::vector<std::size_t> waiting;  // items to (re-)submit
  for (std::size_t i = 0; i < items.size(); ++i) waiting.push_back(i);
  std::vector<Job> jobs;  // running
  std::size_t done = 0;

  auto launch = [&](std::vector<std::size_t> batch) {
    Job job;
    job.items = std::move(batch);
    write_batch(job, items);
    for (std::size_t i : job.items) ++outcomes[i].attempts;
    job.id = submit(job);
    for (std::size_t i : job.items) outcomes[i].job_id = job.id;
    jobs.push_back(std::move(job));
  };
  auto finish = [&](std::size_t i) {
    ++done;
    on_outcome(outcomes[i]);
  };
  auto read_lines = [&](Job& job) { read_new_lines(job, items, outcomes, finish); };

  while (done < items.size()) {
    if (stop.stop_requested()) {
      for (const auto& job : jobs) slurm_command({"scancel", job.id});
      return;
    }
    while (!waiting.empty()) {
      std::size_t n = std::min<std::size_t>(waiting.size(), static_cast<std::size_t>(settings_.batch_size));
      std::vector<std::size_t> batch(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(n));
      waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(n));
      launch(std::move(batch));
    }
    std::this_thread::sleep_for(settings_.poll);
    for (auto it = jobs.begin(); it != jobs.end();) {
      read_lines(*it);
      JobState state = job_state(it->id);
      if (!job_finished(state.state)) {
        ++it;
        continue;
      }
      read_lines(*it);  // lines written just before the end
      const std::string what = "job " + it->id + ": " + state.state + (state.reason.empty() || state.reason == "None" ? "" : " (" + state.reason + ")") +
                               (state.nodes.empty() ? "" : " on " + state.nodes);
      for (std::size_t i : it->items) {
        if (it->reported.count(i)) continue;
        ItemOutcome& o = outcomes[i];
        o.history.push_back(what);
        if (o.attempts < settings_.max_attempts) {
          waiting.push_back(i);
        } else {
          o.failure = no_verdict_text(o, it->log);
          finish(i);
        }
      }
      it = jobs.erase(it);
    }
  }
}

}  // namespace hone::cluster
