// lsp/lsp_server.h: HoneLspServer, the only class that knows LSP: the lifecycle, text sync,
// diagnostics, code lenses, inlay hints, hover, code actions and hone's custom jobs
// (protocol/PROTOCOL.md), mapped onto the engine. Messages arrive on the transport's reader
// thread; jobs run on the JobScheduler's threads (lsp/job_scheduler.h) and answer from there.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "engine/engine.h"
#include "lsp/job_scheduler.h"
#include "lsp/diagnostic_sets.h"
#include "lsp/dispatcher.h"
#include "lsp/job_results.h"
#include "lsp/documents.h"
#include "lsp/progress.h"
#include "lsp/results.h"
#include "lsp/transport.h"

namespace hone::lsp {

struct ServerOptions {
  EngineOptions engine;                            // workspace and python may come from initialize
  std::chrono::milliseconds change_debounce{400};  // didChange -> rebuild for diagnostics
  std::chrono::milliseconds refresh_debounce{150}; // result changes -> lens/hint refresh requests
  int cpu_workers = 2;                             // parallel compiles
  int job_workers = 4;                             // checks, profiles and optimize runs at once
};

// The commands workspace/executeCommand runs (commands.cpp): hone.check, hone.profile,
// hone.optimize, hone.showReport, hone.applyProposal, hone.undoProposal, hone.showPtx,
// hone.showSass, hone.createTask.
const std::vector<std::string>& server_commands();

class HoneLspServer : public MessageSink {
 public:
  // The transport outlives the server. Nothing starts until run().
  HoneLspServer(FdTransport& transport, ServerOptions options);
  ~HoneLspServer() override;

  // The calling thread becomes the reader thread. Returns the process exit code: 0 after
  // shutdown + exit, 1 after exit without shutdown or end of input.
  int run();

  // MessageSink, reader thread.
  void on_message(nlohmann::json message) override;
  void on_bad_input(int code, const std::string& message, const nlohmann::json& id) override;

 private:
  enum class Lifecycle { uninitialized, running, shut_down };
  struct Job;

  void bind_methods();
  void log(const std::string& line) const;

  // Lifecycle and configuration (lsp_server.cpp).
  void on_initialize(const nlohmann::json& params, Reply reply);
  void on_shutdown(Reply reply);
  void on_configuration(const ConfigurationParams& params);
  void apply_settings(const nlohmann::json& settings);
  std::shared_ptr<Engine> engine();

  // Text sync and diagnostics (text_sync.cpp).
  void on_did_open(const DidOpenParams& params);
  void on_did_change(const DidChangeParams& params);
  void on_did_save(const DidSaveParams& params);
  void on_did_close(const DidCloseParams& params);
  void schedule_build(const std::string& uri, std::chrono::milliseconds debounce);
  void run_build(const std::string& uri, std::stop_token stop);
  void publish_diagnostics(const std::string& uri);
  void schedule_refresh();

  // Editor features (features.cpp).
  void on_code_lens(const DocumentParams& params, Reply reply);
  void on_inlay_hint(const RangeParams& params, Reply reply);
  void on_hover(const TextDocumentPositionParams& params, Reply reply);
  void on_code_action(const nlohmann::json& params, Reply reply);
  void on_result(const DocumentParams& params, Reply reply);
  bool paired_task(const Document& doc);
  void on_proposal(const ProposalParams& params, Reply reply);

  // workspace/executeCommand (commands.cpp): every command a lens or code action carries.
  void on_execute_command(const nlohmann::json& params, Reply reply, std::stop_token stop);
  void apply_text(const std::string& uri, const std::string& text, const std::string& label, Reply reply,
                  std::function<void()> on_applied);
  void show_message(int type, const std::string& message);
  void create_task(const std::string& uri, Reply reply);
  // hone.applyProposal / hone.undoProposal: the optimizer's proposal (or the text before it) as a
  // workspace edit of the document.
  void apply_proposal(const std::string& uri, const std::string& current_text, const nlohmann::json& args, Reply reply);
  void undo_proposal(const std::string& uri, Reply reply);
  void show_machine_code(const std::string& kind, const std::string& uri, const nlohmann::json& args, Reply reply);

  // Jobs (jobs.cpp). `via_command`: started by workspace/executeCommand (its summary is shown too).
  void on_job(const std::string& kind, const JobParams& params, Reply reply, std::stop_token stop, bool via_command = false);
  void on_progress_cancel(const WorkDoneProgressCancelParams& params);
  JobResult run_job(Job& job, const CallContext& ctx);
  void finish_job(const std::shared_ptr<Job>& job, JobOutcome outcome);

  FdTransport& transport_;
  ServerOptions options_;
  Dispatcher dispatcher_;
  DocumentStore documents_;
  ResultStore results_;
  DiagnosticSets diagnostics_;
  std::unique_ptr<JobScheduler> scheduler_;

  mutable std::mutex mutex_;  // guards the fields below
  Lifecycle lifecycle_ = Lifecycle::uninitialized;
  bool exit_requested_ = false;
  PositionEncoding encoding_ = PositionEncoding::utf16;
  bool client_creates_progress_ = false;
  bool client_refreshes_lenses_ = false;
  bool client_refreshes_hints_ = false;
  bool client_shows_documents_ = false;
  std::set<std::string> client_commands_;  // commands the client runs itself (initializationOptions.clientCommands)
  nlohmann::json settings_ = nlohmann::json::object();
  std::shared_ptr<Engine> engine_;
  std::map<std::uint64_t, std::shared_ptr<Job>> jobs_;
  std::uint64_t next_job_id_ = 1;
};

}  // namespace hone::lsp
