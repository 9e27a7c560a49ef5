// lsp/jobs.cpp: hone/check, hone/profile and hone/optimize as scheduled jobs: progress
// ($/progress and hone/jobProgress), cancellation ($/cancelRequest, window/workDoneProgress/cancel),
// one answer per request, hone/jobFinished, and the results they leave for lenses and hints.
#include "lsp/job_work.h"
#include "lsp/lsp_server.h"
#include "protocol/verdict_text.h"

namespace hone::lsp {

using nlohmann::json;

struct HoneLspServer::Job {
  std::uint64_t id = 0;
  std::string kind;  // "check" | "profile" | "optimize"
  Document doc;
  JobParams params;
  std::shared_ptr<Engine> engine;
  std::shared_ptr<WorkDoneProgress> progress;
  std::optional<Reply> reply;
  JobId scheduled = 0;
  std::unique_ptr<std::stop_callback<std::function<void()>>> on_request_cancel;
  // Set by the job's thread before `done`.
  std::optional<JobResult> result;
  std::optional<std::string> error;
  bool cancelled = false;
  bool via_command = false;
};

void HoneLspServer::on_job(const std::string& kind, const JobParams& params, Reply reply, std::stop_token stop,
                           bool via_command) {
  auto doc = documents_.get(params.textDocument.uri);
  if (!doc) {
    reply.error({rpc::kInvalidParams, "document is not open: " + params.textDocument.uri});
    return;
  }
  if (auto problem = validate_job_options(kind, params.options)) {
    reply.error({rpc::kInvalidParams, "invalid options for hone/" + kind + ": " + *problem});
    return;
  }
  auto job = std::make_shared<Job>();
  job->kind = kind;
  job->via_command = via_command;
  job->doc = *doc;
  job->params = params;
  try {
    job->engine = engine();
  } catch (const EngineError& e) {
    reply.error({rpc::kRequestFailed, std::string("hone cannot start its engine: ") + e.what()});
    return;
  }
  bool supports_create;
  {
    std::lock_guard lock(mutex_);
    job->id = next_job_id_++;
    supports_create = client_creates_progress_;
    jobs_[job->id] = job;
  }
  job->reply = std::move(reply);
  job->progress = WorkDoneProgress::start(dispatcher_, "hone: " + kind + " " + doc->path.filename().string(),
                                          params.workDoneToken, supports_create,
                                          "hone/" + kind + "/" + std::to_string(job->id));
  results_.update(doc->uri, [&](KernelResults& r) { r.running.insert(kind); });
  schedule_refresh();

  JobSpec spec;
  spec.name = kind + ":" + doc->uri;
  spec.queue = JobQueue::jobs;
  spec.run = [this, job](std::stop_token job_stop) {
    CallContext ctx;
    ctx.stop = job_stop;
    ctx.progress = [this, job](const Progress& p) {
      job->progress->report(p.stage + (p.message.empty() ? "" : ": " + p.message));
      dispatcher_.notify("hone/jobProgress", {{"jobId", job->id}, {"kind", job->kind}, {"uri", job->doc.uri},
                                              {"stage", p.stage}, {"message", p.message}});
    };
    try {
      job->result = run_job(*job, ctx);
    } catch (const EngineError& e) {
      if (e.kind() == EngineError::Kind::Cancelled) {
        job->cancelled = true;
      } else {
        job->error = std::string(e.what()) + (e.detail().empty() ? "" : "\n" + e.detail());
      }
    } catch (const std::exception& e) {
      job->error = std::string("internal error: ") + e.what();
    }
  };
  spec.done = [this, job](JobOutcome outcome) { finish_job(job, outcome); };
  job->scheduled = scheduler_->schedule(std::move(spec));
  JobId scheduled = job->scheduled;
  job->on_request_cancel = std::make_unique<std::stop_callback<std::function<void()>>>(
      stop, std::function<void()>([this, scheduled] { scheduler_->cancel(scheduled); }));
}

JobResult HoneLspServer::run_job(Job& job, const CallContext& ctx) {
  json settings;
  {
    std::lock_guard lock(mutex_);
    settings = settings_;
  }
  JobInput input{job.doc, job.params, settings, *job.engine, [this, &job](const std::string& message, const json& detail) {
                   job.progress->report(message);
                   json params = detail;
                   params.update({{"jobId", job.id}, {"kind", job.kind}, {"uri", job.doc.uri}, {"stage", job.kind}, {"message", message}});
                   dispatcher_.notify("hone/jobProgress", params);
                 }};
  JobResult out;
  if (job.kind == "check") {
    protocol::Verdict verdict = run_check(input, ctx);
    auto current = documents_.get(job.doc.uri);
    results_.update(job.doc.uri, [&](KernelResults& r) {
      r.check = verdict;
      if (current && current->version == job.doc.version) {
        r.compile = verdict.compile;
        r.built_version = job.doc.version;
      }
    });
    publish_diagnostics(job.doc.uri);
    out.summary = protocol::verdict_headline(verdict);
    out.verdict = std::move(verdict);
    return out;
  }
  if (job.kind == "profile") {
    ProfileResult profiled = run_profile(input, ctx);
    results_.update(job.doc.uri, [&](KernelResults& r) {
      r.profile = profiled.verdict;
      r.check = profiled.verdict;
    });
    publish_diagnostics(job.doc.uri);
    out.summary = protocol::profile_headline(profiled.verdict, profiled.skipped);
    out.verdict = std::move(profiled.verdict);
    if (profiled.plot) out.plot = profiled.plot->string();
    out.skipped = profiled.skipped;
    return out;
  }
  OptimizeResult optimized = run_optimize(input, ctx, results_.get(job.doc.uri).optimize);
  results_.update(job.doc.uri, [&](KernelResults& r) { r.optimize = optimized; });
  out.summary = optimized.summary;
  out.optimize = std::move(optimized);
  return out;
}

void HoneLspServer::finish_job(const std::shared_ptr<Job>& job, JobOutcome outcome) {
  std::string status = "done";
  if (outcome == JobOutcome::failed && !job->error) job->error = "internal error: the job stopped with an unknown exception";
  if (outcome == JobOutcome::superseded) {
    status = "superseded";
  } else if (outcome == JobOutcome::cancelled || job->cancelled) {
    status = "cancelled";
  } else if (job->error) {
    status = "failed";
  }
  results_.update(job->doc.uri, [&](KernelResults& r) { r.running.erase(job->kind); });
  // A stopped optimize still returns what it verified (its partial result), as hone/result does.
  bool partial = status == "cancelled" && job->result;
  std::string summary = status == "done" && job->result ? job->result->summary : status;
  if (partial) summary += ": " + job->result->summary;
  job->progress->end(status == "failed" ? "failed: " + job->error->substr(0, job->error->find('\n')) : summary);
  json finished = {{"jobId", job->id}, {"kind", job->kind}, {"uri", job->doc.uri}, {"status", status}};
  if ((status == "done" || partial) && job->result) finished["result"] = *job->result;
  if (job->error) finished["error"] = *job->error;
  dispatcher_.notify("hone/jobFinished", finished);
  if (job->via_command)
    show_message(status == "failed" ? 1 : 3, "hone " + job->kind + " " + job->doc.path.filename().string() + ": " +
                                                 (status == "failed" ? job->error->substr(0, job->error->find('\n')) : summary));
  if (status == "done") {
    (*job->reply)(finished);
  } else if (status == "failed") {
    job->reply->error({rpc::kRequestFailed, "hone/" + job->kind + " failed: " + *job->error});
  } else {
    job->reply->error({rpc::kRequestCancelled, "hone/" + job->kind + " " + status});
  }
  {
    std::lock_guard lock(mutex_);
    jobs_.erase(job->id);
  }
  schedule_refresh();
}

void HoneLspServer::on_progress_cancel(const WorkDoneProgressCancelParams& params) {
  // Only a real token names a job: a null one would match every job that reports no progress.
  if (!params.token.is_string() && !params.token.is_number_integer()) {
    log("window/workDoneProgress/cancel without a string or integer token " + params.token.dump() + ": nothing cancelled");
    return;
  }
  std::vector<JobId> matches;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) {
      if (job->progress && job->progress->token() == params.token) matches.push_back(job->scheduled);
    }
  }
  for (JobId id : matches) scheduler_->cancel(id);
}

}  // namespace hone::lsp
