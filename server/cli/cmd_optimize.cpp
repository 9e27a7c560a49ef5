// cli/cmd_optimize.cpp: `hone optimize KERNEL [--task T] [--device cpu|cuda] [--budget 15m]
// [--samples N] [--rounds K] [--llm-url URL --llm-model M | --no-llm] [--json]` and
// `hone optimize --resume RUN`: runs the verify-and-refine loop with a live progress line on a
// terminal (plain lines otherwise), then prints the re-verified best proposal as a unified diff
// with its measured speedups (or one JSON object with --json). Ctrl-C stops the run cleanly;
// a second Ctrl-C exits at once. The LLM key comes only from HONE_LLM_API_KEY.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <thread>

#include "cli/commands.h"
#include "cli/cmd_optimize_output.h"
#include "cli/engine_flags.h"
#include "cli/verify_on.h"
#include "engine/engine.h"
#include "support/child_groups.h"

namespace hone::cli {
namespace {

struct OptimizeFlags {
  EngineFlags scale;      // --gpus, --executor, --slurm-*
  std::string verify_on;  // "all": re-check the winner on every GPU kind
  std::string kernel;
  std::string task;
  std::string device = "auto";
  std::string python;
  std::string budget;
  int samples = 0;
  int rounds = 0;
  std::int64_t token_budget = 0;
  std::string llm_url;
  std::string llm_model;
  bool no_llm = false;
  double temperature = -1;
  int max_tokens = 0;
  int llm_concurrency = 0;
  double llm_timeout_s = 0;
  double price_input = 0;
  double price_output = 0;
  std::string prompts;
  bool no_flags = false;
  std::int64_t resume = 0;
  bool json = false;
};

// "15m", "90s", "1h30m", "2h", or plain seconds -> seconds; nullopt when malformed.
std::optional<std::chrono::seconds> parse_duration(const std::string& text) {
  static const std::regex plain(R"(^\s*(\d+)\s*$)");
  static const std::regex parts(R"(^\s*(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:(\d+)s)?\s*$)");
  std::smatch m;
  if (std::regex_match(text, m, plain)) return std::chrono::seconds(std::stol(m[1]));
  if (!std::regex_match(text, m, parts) || text.find_first_of("0123456789") == std::string::npos) return std::nullopt;
  long s = 0;
  if (m[1].matched) s += 3600 * std::stol(m[1]);
  if (m[2].matched) s += 60 * std::stol(m[2]);
  if (m[3].matched) s += std::stol(m[3]);
  return std::chrono::seconds(s);
}

std::string env_or(const char* name, const std::string& given) {
  if (!given.empty()) return given;
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// Turns SIGINT/SIGTERM into a stop request while the run lasts: the first stops the run cleanly
// (it is saved and can be resumed), a second exits at once. The handler only sets a flag; a
// thread turns the flag into the stop request. Children keep the default signal handling.
std::atomic<int> g_interrupts{0};

extern "C" void on_interrupt(int) {
  if (g_interrupts.fetch_add(1) >= 1) {
    hone::kill_child_groups();
    std::_Exit(130);
  }
}

class InterruptGuard {
 public:
  explicit InterruptGuard(std::stop_source& stop) {
    g_interrupts = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    watcher_ = std::jthread([&stop](std::stop_token done) {
      while (!done.stop_requested()) {
        if (g_interrupts.load() > 0 && !stop.stop_requested()) {
          std::cerr << "\nhone: stopping (the run is saved; press Ctrl-C again to quit at once)" << std::endl;
          stop.request_stop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  ~InterruptGuard() {
    watcher_.request_stop();
    watcher_.join();
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  std::jthread watcher_;
};

// The LLM settings from the flags (and $HONE_LLM_URL / $HONE_LLM_MODEL) into the request; what is
// wrong with them, or nullopt. No URL and no model: the built-in tuner.
std::optional<std::string> add_model(const OptimizeFlags& f, OptimizeRequest& req) {
  std::string url = f.no_llm ? "" : env_or("HONE_LLM_URL", f.llm_url);
  std::string model = f.no_llm ? "" : env_or("HONE_LLM_MODEL", f.llm_model);
  if (url.empty() && model.empty()) return std::nullopt;
  if (url.empty() || model.empty())
    return "an LLM needs both --llm-url and --llm-model (or use --no-llm for the built-in tuner)";
  ModelSettings llm;
  llm.url = url;
  llm.model = model;
  if (f.temperature >= 0) llm.temperature = f.temperature;
  if (f.max_tokens > 0) llm.max_tokens = f.max_tokens;
  if (f.llm_concurrency > 0) llm.max_concurrency = f.llm_concurrency;
  if (f.llm_timeout_s > 0) llm.request_timeout = std::chrono::seconds(static_cast<long>(f.llm_timeout_s));
  llm.price_input_per_mtok = f.price_input;
  llm.price_output_per_mtok = f.price_output;
  req.model = llm;
  return std::nullopt;
}

// --verify-on all: the re-verified winner checked once more on every GPU kind present.
void verify_winner_on_every_kind(Engine& engine, const OptimizeRequest& req, const protocol::OptimizeResult& result,
                                 bool as_json, const CallContext& ctx) {
  CheckRequest again;
  again.kernel.path = result.best->verdict ? std::filesystem::path(result.best->verdict->kernel.path) : req.kernel;
  again.kernel.contents = result.best->source;
  again.extra_flags = result.best->flags;
  if (result.best->verdict) again.task = result.best->verdict->task.path;
  std::vector<protocol::Verdict> per_kind = verify_on_every_kind(engine, again, ctx);
  if (as_json) {
    for (const auto& v : per_kind) std::cout << nlohmann::json(v).dump() << std::endl;
  } else {
    std::cout << "the winner on every GPU kind:\n" << verify_on_text(per_kind);
  }
}

int run_optimize(const OptimizeFlags& f) {
  if (f.kernel.empty() == (f.resume <= 0)) {
    std::cerr << "hone optimize: give a KERNEL, or --resume RUN to continue a stored run (`hone runs` lists them)\n";
    return 2;
  }
  OptimizeRequest req;
  req.kernel = f.kernel;
  if (!f.task.empty()) req.task = f.task;
  req.device = f.device;
  if (f.resume > 0) req.resume_run = f.resume;
  if (!f.budget.empty()) {
    auto b = parse_duration(f.budget);
    if (!b || b->count() <= 0) {
      std::cerr << "hone optimize: --budget " << f.budget << ": expected a duration such as 15m, 90s, 1h30m\n";
      return 2;
    }
    req.budget = *b;
  }
  if (f.samples > 0) req.options.samples = f.samples;
  if (f.rounds > 0) req.options.rounds = f.rounds;
  if (f.rounds > 0 && f.resume > 0) req.resume_rounds = f.rounds;
  if (f.token_budget > 0) req.options.token_budget = f.token_budget;
  if (!f.prompts.empty()) req.prompts_dir = f.prompts;
  req.tune_flags = !f.no_flags;

  if (std::optional<std::string> problem = add_model(f, req)) {
    std::cerr << "hone optimize: " << *problem << "\n";
    return 2;
  }

  EngineFlags ef = f.scale;
  ef.device = f.device;
  ef.python = f.python;
  std::unique_ptr<Engine> engine;
  std::stop_source stop;
  ProgressView view(!f.json && ::isatty(STDERR_FILENO));
  try {
    engine = std::make_unique<Engine>(engine_options(ef));
    // A round's candidates fill the pool: at least one sample per GPU unless --samples says.
    if (f.samples == 0 && (!ef.gpus.empty() || engine->options().gpus.mode != GpuSelection::Mode::One)) {
      const int width = engine->pool_width(*parse_device_kind(f.device));
      if (width > req.options.samples) req.options.samples = width;
    }
    InterruptGuard guard(stop);
    CallContext ctx;
    ctx.stop = stop.get_token();
    protocol::OptimizeResult result = engine->optimize(req, ctx, [&view](const protocol::OptimizeEvent& e) { view.show(e); });
    view.clear();
    if (f.json) {
      std::cout << nlohmann::json(result).dump(2) << std::endl;
    } else {
      std::cout << result_text(result, engine->store_path());
    }
    if (f.verify_on == "all" && result.best) verify_winner_on_every_kind(*engine, req, result, f.json, ctx);
    if (result.status == "failed") return 2;
    return result.best ? 0 : 1;
  } catch (const EngineError& e) {
    view.clear();
    if (f.json) std::cout << nlohmann::json{{"error", e.what()}, {"detail", e.detail()}}.dump(2) << std::endl;
    std::cerr << "hone: error: " << e.what() << "\n";
    if (!e.detail().empty()) std::cerr << e.detail() << "\n";
    return e.kind() == EngineError::Kind::Cancelled ? 1 : 2;
  } catch (const std::exception& e) {
    view.clear();
    std::cerr << "hone: internal error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace

void add_optimize_command(CLI::App& app, CommandRegistry& registry) {
  auto f = std::make_shared<OptimizeFlags>();
  auto* cmd = app.add_subcommand("optimize", "Make a kernel faster: a model (or the built-in tuner) proposes, the verifier decides");
  cmd->add_option("kernel", f->kernel, "The kernel (.cu or .cpp); omit with --resume");
  cmd->add_option("--task", f->task, "The PyTorch reference (default: paired as `hone check` pairs it)");
  cmd->add_option("--device", f->device, "auto (GPU for .cu, CPU for .cpp), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--python", f->python, "Python interpreter that imports torch (default: $HONE_PYTHON, then search)");
  cmd->add_option("--budget", f->budget, "Wall-clock budget of the search, counted once the original kernel is checked: 15m, 90s, 1h (default 15m; resuming: what is left)");
  cmd->add_option("--samples", f->samples, "Candidates per round, made and verified in parallel (default 4)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--rounds", f->rounds, "Refinement rounds (default 8)")->check(CLI::Range(1, 10000));
  cmd->add_option("--tokens", f->token_budget, "Token budget over the run (prompt + completion)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--llm-url", f->llm_url, "OpenAI-compatible endpoint, e.g. https://api.deepseek.com (or $HONE_LLM_URL); key from $HONE_LLM_API_KEY");
  cmd->add_option("--llm-model", f->llm_model, "Model name, e.g. deepseek-reasoner (or $HONE_LLM_MODEL)");
  cmd->add_flag("--no-llm", f->no_llm, "Use the built-in tuner even when an endpoint is configured");
  cmd->add_option("--temperature", f->temperature, "Sampling temperature sent to the model")->check(CLI::Range(0.0, 2.0));
  cmd->add_option("--max-tokens", f->max_tokens, "max_tokens sent to the model")->check(CLI::PositiveNumber);
  cmd->add_option("--llm-concurrency", f->llm_concurrency, "LLM requests in flight at once (default 4)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--llm-timeout", f->llm_timeout_s, "Seconds one LLM request may take (default 900)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--llm-price-input", f->price_input, "USD per million prompt tokens, for cost accounting")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--llm-price-output", f->price_output, "USD per million completion tokens")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--prompts", f->prompts, "Folder with system.mustache and user.mustache (default: hone's)");
  cmd->add_flag("--no-flags", f->no_flags, "Tuner: keep the compiler flags as they are (tune only the declared knobs)");
  cmd->add_option("--resume", f->resume,
                  "Continue a stored run with its own settings; --budget and --rounds may extend it (`hone runs` lists runs)")
      ->check(CLI::PositiveNumber);
  add_scale_flags(cmd, f->scale);
  cmd->add_option("--verify-on", f->verify_on, "all: re-check the winner on every GPU kind of the pool")
      ->check(CLI::IsMember({"all"}));
  cmd->add_flag("--json", f->json, "Print one JSON object: best {status, speedup, source}, counts, diff");
  cmd->callback([f, &registry] { registry.set_exit_code(run_optimize(*f)); });
}

}  // namespace hone::cli
