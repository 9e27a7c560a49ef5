// cli/kernelbench_runs.cpp: KernelBench run layouts and eval-result entries.
#include "cli/kernelbench_runs.h"

#include <algorithm>
#include <regex>
#include <tuple>

namespace hone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxFiles = 200000;  // a run folder walked at most this far

json stats_ms(const protocol::Timing& t, const protocol::Verdict& v) {
  const double mean = t.mean_us.value_or(t.p50_us) / 1000.0;
  // hone keeps percentiles, not the standard deviation: the p10..p90 spread / 2.563 is a normal's σ.
  const double sigma = (t.p90_us - t.p10_us) / 1000.0 / 2.563;
  return json{{"mean", mean}, {"std", sigma}, {"min", t.min_us.value_or(t.p10_us) / 1000.0},
              {"max", t.max_us.value_or(t.p90_us) / 1000.0},
              {"num_trials", t.reps}, {"hardware", v.device.name}, {"device", v.device.kind == "cuda"
                                                                                    ? "cuda:" + std::to_string(v.device.index.value_or(0))
                                                                                    : std::string("cpu")}};
}

}  // namespace

std::optional<KernelBenchKey> kernelbench_key(const fs::path& path) {
  static const std::regex flat(R"(level_(\d+)_problem_(\d+)_sample_(\d+))");
  static const std::regex nested(R"((^|/)level_(\d+)/problem_(\d+)/sample_(\d+)(/|$))");
  std::smatch m;
  const std::string name = path.filename().string();
  if (std::regex_search(name, m, flat)) return KernelBenchKey{std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])};
  const std::string generic = path.parent_path().generic_string();
  if (std::regex_search(generic, m, nested)) return KernelBenchKey{std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4])};
  return std::nullopt;
}

std::optional<KernelBenchKey> task_key(const fs::path& task) {
  static const std::regex number(R"(^(\d+)_)");
  static const std::regex level(R"(^level_?(\d+)$)");
  std::smatch m;
  const std::string stem = task.stem().string();
  if (!std::regex_search(stem, m, number)) return std::nullopt;
  KernelBenchKey k;
  k.problem = std::stoi(m[1]);
  const std::string folder = task.parent_path().filename().string();
  if (std::regex_match(folder, m, level)) k.level = std::stoi(m[1]);
  return k;
}

std::vector<fs::path> answers_for(const fs::path& task, const fs::path& run_dir) {
  std::vector<std::pair<KernelBenchKey, fs::path>> found;
  const auto want = task_key(task);
  std::error_code ec;
  if (want) {
    std::size_t seen = 0;
    for (auto it = fs::recursive_directory_iterator(run_dir, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator() && seen < kMaxFiles; it.increment(ec), ++seen) {
      if (ec) break;
      if (!it->is_regular_file(ec) || it->path().extension() != ".py") continue;
      auto key = kernelbench_key(it->path().lexically_relative(run_dir));
      if (!key || key->problem != want->problem || (want->level && key->level != want->level)) continue;
      found.emplace_back(*key, it->path());
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.level, a.first.sample, a.second) < std::tie(b.first.level, b.first.sample, b.second);
  });
  std::vector<fs::path> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  const fs::path named = run_dir / (task.stem().string() + ".py");
  if (fs::is_regular_file(named, ec) && fs::weakly_canonical(named) != fs::weakly_canonical(task)) out.push_back(named);
  return out;
}

json kernelbench_entry(const protocol::Verdict& v, int sample) {
  using protocol::Status;
  json metadata{{"hardware", v.device.name}, {"device", v.device.kind}, {"hone_status", protocol::to_string(v.status)},
                {"hone_reason", v.reason.value_or("")}, {"flags", json::array()}};
  for (const auto& f : v.flags) metadata["flags"].push_back(f.id);
  const bool compiled = v.status != Status::CompileError;
  const bool correct = v.status == Status::Correct;
  if (!compiled) metadata["compilation_error"] = v.reason.value_or("compile error");
  if (v.status == Status::Incorrect || v.status == Status::Rejected) metadata["correctness_issue"] = v.reason.value_or("");
  if (v.status == Status::RuntimeError || v.status == Status::Timeout) metadata["runtime_error"] = v.reason.value_or("");
  if (v.correctness) metadata["correctness_trials"] = std::to_string(v.correctness->trials.size()) + " trials";
  json e{{"sample_id", sample}, {"compiled", compiled}, {"correctness", correct}, {"metadata", metadata},
         {"runtime", -1.0}, {"runtime_stats", json::object()}, {"ref_runtime", -1.0}, {"ref_runtime_stats", json::object()}};
  if (correct && v.timing) {
    e["runtime"] = v.timing->mean_us.value_or(v.timing->p50_us) / 1000.0;
    e["runtime_stats"] = stats_ms(*v.timing, v);
  }
  if (v.baselines && v.baselines->eager) {
    e["ref_runtime"] = v.baselines->eager->mean_us.value_or(v.baselines->eager->p50_us) / 1000.0;
    e["ref_runtime_stats"] = stats_ms(*v.baselines->eager, v);
  }
  return e;
}

json kernelbench_error_entry(const std::string& status, const std::string& reason, int sample) {
  return json{{"sample_id", sample}, {"compiled", false}, {"correctness", false}, {"runtime", -1.0},
              {"runtime_stats", json::object()}, {"ref_runtime", -1.0}, {"ref_runtime_stats", json::object()},
              {"metadata", json{{"hone_status", status}, {"hone_reason", reason}, {"other_error", reason}}}};
}

}  // namespace hone::cli
