// engine/check_many.cpp: many checks at once: spread over the pool's judges on this host (a
// thread per member), or submitted to Slurm in batches (cluster/slurm_executor) whose jobs run
// `hone run-batch` (run_check_batch below) and stream their verdicts back.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cluster/slurm_executor.h"
#include "engine/engine_impl.h"
#include "support/hash.h"
#include "support/paths.h"
#include "toolchain/kernel_source.h"

namespace hone {
namespace {

using nlohmann::json;

json request_json(const CheckRequest& r, const Engine::Impl& impl) {
  json j{{"kernel", impl.absolute(r.kernel.path).string()},
         {"device", std::string(protocol::to_string(r.device))},
         {"timing", r.timing},
         {"baselines", r.baselines},
         {"compile_baseline", r.compile_baseline},
         {"extra_flags", r.extra_flags}};
  if (r.kernel.contents) j["contents"] = *r.kernel.contents;
  if (r.task) j["task"] = impl.absolute(*r.task).string();
  if (r.seeds) j["seeds"] = *r.seeds;
  if (r.atol) j["atol"] = *r.atol;
  if (r.rtol) j["rtol"] = *r.rtol;
  if (r.deadline) j["deadline_s"] = r.deadline->count();
  if (r.gpu_kind) j["gpu_kind"] = *r.gpu_kind;
  return j;
}

CheckRequest request_from_json(const json& j) {
  CheckRequest r;
  r.kernel.path = j.at("kernel").get<std::string>();
  if (j.contains("contents")) r.kernel.contents = j["contents"].get<std::string>();
  if (j.contains("task")) r.task = j["task"].get<std::string>();
  r.device = parse_device_kind(j.value("device", std::string("auto"))).value_or(DeviceKind::Auto);
  if (j.contains("seeds")) r.seeds = j["seeds"].get<int>();
  if (j.contains("atol")) r.atol = j["atol"].get<double>();
  if (j.contains("rtol")) r.rtol = j["rtol"].get<double>();
  r.timing = j.value("timing", true);
  r.baselines = j.value("baselines", true);
  r.compile_baseline = j.value("compile_baseline", true);
  r.extra_flags = j.value("extra_flags", std::vector<std::string>{});
  if (j.contains("deadline_s")) r.deadline = std::chrono::seconds(j["deadline_s"].get<long>());
  if (j.contains("gpu_kind")) r.gpu_kind = j["gpu_kind"].get<std::string>();
  r.local_only = true;
  return r;
}

json options_json(const EngineOptions& o, const std::filesystem::path& workspace) {
  json j{{"workspace", workspace.string()},
         {"device", std::string(protocol::to_string(o.device))},
         {"gpu_index", o.gpu_index},
         {"gpus", o.gpus.text()},
         {"sandbox", o.sandbox},
         {"seeds", o.seeds},
         {"compile_timeout_s", o.compile_timeout.count()},
         {"check_timeout_s", o.check_timeout.count()},
         {"worker_start_timeout_s", o.worker_start_timeout.count()}};
  if (o.python) j["python"] = o.python->string();
  if (o.arch) j["arch"] = *o.arch;
  return j;
}

EngineOptions options_from_json(const json& j) {
  EngineOptions o;
  o.workspace = j.value("workspace", std::string());
  o.device = parse_device_kind(j.value("device", std::string("auto"))).value_or(DeviceKind::Auto);
  o.gpu_index = j.value("gpu_index", 0);
  o.gpus = GpuSelection::parse(j.value("gpus", std::string())).value_or(GpuSelection{});
  o.sandbox = j.value("sandbox", true);
  o.seeds = j.value("seeds", 3);
  o.compile_timeout = std::chrono::seconds(j.value("compile_timeout_s", 300L));
  o.check_timeout = std::chrono::seconds(j.value("check_timeout_s", 180L));
  o.worker_start_timeout = std::chrono::seconds(j.value("worker_start_timeout_s", 120L));
  if (j.contains("python")) o.python = j["python"].get<std::string>();
  if (j.contains("arch")) o.arch = j["arch"].get<std::string>();
  return o;
}

// The verdict of a check no Slurm job finished: what happened to the jobs, as a runtime_error.
protocol::Verdict unfinished_verdict(const CheckRequest& r, const Engine::Impl& impl, const cluster::ItemOutcome& o) {
  protocol::Verdict v;
  v.status = protocol::Status::RuntimeError;
  v.reason = o.failure;
  const std::filesystem::path kernel = impl.absolute(r.kernel.path);
  std::string text = r.kernel.contents.value_or("");
  if (!r.kernel.contents) {
    try {
      text = read_file(kernel);
    } catch (const std::exception&) {
      text.clear();  // the hash stays that of an empty file: the verdict is about the jobs
    }
  }
  const bool cuda = toolchain::language_for_path(kernel) == toolchain::KernelLanguage::Cuda;
  v.kernel = {kernel.string(), sha256_hex(text), "unknown", cuda ? "cuda" : "cpp"};
  if (r.task) v.task = {impl.absolute(*r.task).string(), "", r.task->stem().string()};
  v.device.kind = cuda ? "cuda" : "cpu";
  v.device.name = "Slurm";
  v.compile.ok = false;
  return v;
}

cluster::SlurmSettings slurm_settings(const Engine::Impl& impl) {
  const SlurmOptions& so = impl.options.slurm;
  cluster::SlurmSettings s;
  s.partition = so.partition;
  s.account = so.account;
  s.time_limit = so.time_limit;
  s.gres = so.gres;
  s.batch_size = so.batch_size;
  s.max_attempts = so.max_attempts;
  s.extra_args = so.extra_args;
  s.hone = so.hone_binary.empty() ? executable_path().parent_path() / "hone" : std::filesystem::path(so.hone_binary);
  s.work_dir = impl.workspace / ".hone" / "slurm";
  s.chdir = impl.workspace;
  s.options = options_json(impl.options, impl.workspace);
  return s;
}

// A Slurm item's verdict: the node's, or one saying what happened to its jobs; with the executor's facts.
protocol::Verdict slurm_verdict(const CheckRequest& request, const Engine::Impl& impl, const cluster::ItemOutcome& o) {
  protocol::Verdict v;
  if (o.result) {
    try {
      v = o.result->get<protocol::Verdict>();
    } catch (const std::exception& ex) {
      v = unfinished_verdict(request, impl, o);
      v.reason = std::string("the Slurm job's verdict could not be read: ") + ex.what();
    }
  } else {
    v = unfinished_verdict(request, impl, o);
  }
  protocol::ExecutorFacts facts;
  facts.kind = "slurm";
  facts.job_id = o.job_id;
  if (!o.node.empty()) facts.node = o.node;
  facts.attempts = std::max(o.attempts, 1);
  v.executor = facts;
  for (const auto& h : o.history)
    if (o.result) v.flags.push_back({"requeued", "Slurm " + h + " before this check finished; re-queued"});
  return v;
}

}  // namespace

Engine::ManyResult Engine::check_many(const std::vector<CheckRequest>& requests, const CallContext& ctx,
                                      std::function<void(std::size_t, const protocol::Verdict&)> on_verdict) {
  ManyResult out;
  out.verdicts.resize(requests.size());
  out.errors.resize(requests.size());
  if (requests.empty()) return out;
  std::mutex report;
  auto deliver = [&](std::size_t i, protocol::Verdict v) {
    std::lock_guard lock(report);
    if (on_verdict) on_verdict(i, v);
    out.verdicts[i] = std::move(v);
  };
  const bool slurm = impl_->options.executor == Executor::Slurm &&
                     std::none_of(requests.begin(), requests.end(), [](const CheckRequest& r) { return r.local_only; });
  if (slurm) {
    cluster::SlurmSettings s = slurm_settings(*impl_);
    std::vector<cluster::BatchItem> items;
    for (std::size_t i = 0; i < requests.size(); ++i) items.push_back({std::to_string(i), request_json(requests[i], *impl_)});
    cluster::SlurmExecutor executor(s);
    if (ctx.progress) executor.on_submit = [&](const std::string& id) { ctx.progress(Progress{"slurm", "submitted job " + id}); };
    try {
      executor.run(items, ctx.stop, [&](const cluster::ItemOutcome& o) {
        const std::size_t i = std::stoul(o.id);
        if (o.result && o.result->contains("error")) {
          const json& e = (*o.result)["error"];
          std::lock_guard lock(report);
          out.errors[i] = EngineError(static_cast<EngineError::Kind>(e.value("kind", 4)), e.value("message", std::string("error")),
                                      e.value("detail", std::string()));
          return;
        }
        deliver(i, slurm_verdict(requests[i], *impl_, o));
      });
    } catch (const cluster::SlurmError& e) {
      throw EngineError(EngineError::Kind::Environment, e.what());
    }
    if (ctx.stop.stop_requested()) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
    return out;
  }

  int width = 1;
  try {
    width = std::max(1, pool_width(requests.front().device, ctx));
  } catch (const EngineError& e) {
    if (e.kind() == EngineError::Kind::Cancelled) throw;
    width = 1;  // the first check reports the problem itself
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> cancelled{false};
  std::optional<EngineError> broken;  // an environment error: every later check would fail the same way
  auto work = [&] {
    for (std::size_t i = next++; i < requests.size() && !cancelled; i = next++) {
      {
        std::lock_guard lock(report);
        if (broken) {
          out.errors[i] = broken;
          continue;
        }
      }
      CheckRequest r = requests[i];
      r.local_only = true;
      try {
        deliver(i, check(r, ctx));
      } catch (const EngineError& e) {
        if (e.kind() == EngineError::Kind::Cancelled) cancelled = true;
        std::lock_guard lock(report);
        out.errors[i] = e;
        if (e.kind() == EngineError::Kind::Environment && !broken) broken = e;
      } catch (const std::exception& e) {
        std::lock_guard lock(report);
        out.errors[i] = EngineError(EngineError::Kind::Internal, e.what());
      }
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int t = 1; t < std::min<int>(width, static_cast<int>(requests.size())); ++t) threads.emplace_back(work);
    work();
  }
  if (cancelled) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
  return out;
}

int run_check_batch(const std::filesystem::path& in, const std::filesystem::path& out) {
  json batch = json::parse(read_file(in));
  Engine engine(options_from_json(batch.at("options")));
  std::vector<CheckRequest> requests;
  std::vector<std::string> ids;
  for (const json& item : batch.at("items")) {
    ids.push_back(item.at("id").get<std::string>());
    requests.push_back(request_from_json(item.at("request")));
  }
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* node = std::getenv("SLURMD_NODENAME");
  std::FILE* f = std::fopen(out.c_str(), "a");
  if (!f) throw EngineError(EngineError::Kind::Usage, "run-batch: cannot write " + out.string());
  auto write = [&](json line) {
    if (job) line["job_id"] = job;
    if (node) line["node"] = node;
    const std::string text = line.dump() + "\n";
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
    ::fsync(::fileno(f));
  };
  std::mutex lines;
  Engine::ManyResult result = engine.check_many(requests, {}, [&](std::size_t i, const protocol::Verdict& v) {
    std::lock_guard lock(lines);
    write(json{{"id", ids[i]}, {"verdict", v}});
  });
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!result.errors[i]) continue;
    const EngineError& e = *result.errors[i];
    write(json{{"id", ids[i]},
               {"error", {{"kind", static_cast<int>(e.kind())}, {"message", e.what()}, {"detail", e.detail()}}}});
  }
  std::fclose(f);
  return 0;
}

}  // namespace hone
