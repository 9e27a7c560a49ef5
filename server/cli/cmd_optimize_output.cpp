// cli/cmd_optimize_output.cpp: progress lines and the final text report of `hone optimize`.
#include "cli/cmd_optimize_output.h"

#include <iostream>
#include <sstream>

#include "protocol/verdict_text.h"

namespace hone::cli {
namespace {

constexpr const char* kEagerMeaning =
    "(× eager: the task's PyTorch Model takes that many times as long as the kernel on the same device and inputs; "
    "above 1 the kernel is faster than PyTorch)\n";

using protocol::format_number;
using protocol::format_speedup;
using protocol::OptimizeEvent;
using protocol::OptimizeResult;
using protocol::short_reason;

std::string duration_text(double s) {
  long t = static_cast<long>(s + 0.5);
  if (t < 60) return std::to_string(t) + "s";
  if (t < 3600) return std::to_string(t / 60) + "m" + (t % 60 ? std::to_string(t % 60) + "s" : "");
  return std::to_string(t / 3600) + "h" + std::to_string((t % 3600) / 60) + "m";
}

std::string times(const std::optional<double>& x) { return x ? format_number(*x) + "×" : std::string("?"); }

// vs_original_text after " · ", "" when it says nothing.
std::string vs_original(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range,
                        const std::string& point_words = "the original") {
  const std::string text = vs_original_text(point, range, point_words);
  return text.empty() ? text : " · " + text;
}

std::string best_text(const OptimizeEvent& e) {
  if (!e.best_p50_us) return "no verified candidate yet";
  std::string s = "best " + format_number(*e.best_p50_us) + " µs";
  s += vs_original(e.best_vs_kernel, e.best_vs_kernel_range);
  if (auto eager = eager_text(e.best_speedup_eager, e.best_speedup_eager_range); !eager.empty()) s += " · " + eager;
  return s;
}

}  // namespace

std::string eager_text(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range) {
  const std::string text = format_speedup(point, range);
  if (text.empty()) return text;
  return point ? text + " eager" : text + " eager (noisy)";
}

std::string vs_original_text(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range,
                             const std::string& point_words) {
  if (point) return times(point) + " " + point_words;
  return range ? format_speedup(std::nullopt, range) + " the original (noisy)" : "";
}

std::string candidate_text(const OptimizeEvent& e) {
  const bool original = e.tried == "as written";
  std::string text = "#" + std::to_string(e.candidate_id) + (original ? " the original kernel: " : " done: ") + e.status;
  if (e.status == "correct") {
    if (e.p50_us) text += " · " + format_number(*e.p50_us) + " µs";
    text += vs_original(e.speedup_vs_kernel, e.speedup_vs_kernel_range);
    if (auto eager = eager_text(e.speedup_eager, e.speedup_eager_range); !eager.empty()) text += " · " + eager;
  } else if (!e.message.empty()) {
    const std::string prefix = "the original kernel: ";
    text += ": " + short_reason(original && e.message.starts_with(prefix) ? e.message.substr(prefix.size()) : e.message);
  }
  if (!original && !e.tried.empty()) text += " · tried " + e.tried;
  return text;
}

void ProgressView::clear() {
  if (live_ && shown_) std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

void ProgressView::line(const std::string& text) {
  clear();
  std::cerr << text << std::endl;
}

void ProgressView::show(const OptimizeEvent& e) {
  std::string stamp = "[" + duration_text(e.elapsed_s) + "] ";
  switch (e.kind) {
    case OptimizeEvent::Kind::RunStarted:
    case OptimizeEvent::Kind::Note:
    case OptimizeEvent::Kind::Finished:
      line(stamp + e.message);
      break;
    case OptimizeEvent::Kind::RoundStarted:
      if (!live_) line(stamp + e.message);
      break;
    case OptimizeEvent::Kind::Proposed:
      if (e.status != "pending") line(stamp + "#" + std::to_string(e.candidate_id) + " " + e.status + ": " + short_reason(e.message));
      break;
    case OptimizeEvent::Kind::Verified:
      if (!labelled_ && e.tried != "as written") {
        line("each line below is one candidate's own result, in the order candidates finish (#N is the order they "
             "were made): its verdict, its time, what it tried");
        labelled_ = true;
      }
      line(stamp + candidate_text(e));
      break;
    case OptimizeEvent::Kind::Recheck:
      line(stamp + (e.status.empty() ? e.message : "#" + std::to_string(e.candidate_id) + " re-verification: " + e.message));
      break;
  }
  if (live_ && e.kind != OptimizeEvent::Kind::Finished) {
    std::cerr << "\r\033[K"
              << "round " << e.round << "/" << e.rounds << " · " << e.candidates << " candidates (" << e.correct
              << " correct) · " << best_text(e) << " · " << duration_text(e.elapsed_s) << std::flush;
    shown_ = true;
  }
}

std::string result_text(const OptimizeResult& r, const std::filesystem::path& store) {
  std::ostringstream out;
  out << "run " << r.run_id << " " << r.status << " (stopped: " << r.stop_reason << ") after "
      << duration_text(r.elapsed_s) << ", " << r.rounds_done << " round(s) · " << r.candidates << " candidate(s)";
  std::string sep = ": ";
  for (const auto& [status, n] : r.counts) {
    out << sep << n << " " << status;
    sep = ", ";
  }
  out << "\n";
  if (!r.error.empty()) out << "error: " << r.error << "\n";
  if (r.baseline) {
    out << "original kernel: " << r.baseline->status;
    if (r.baseline->p50_us) out << ", " << format_number(*r.baseline->p50_us) << " µs";
    if (r.baseline->speedup_eager) out << " (" << times(r.baseline->speedup_eager) << " eager)";
    if (r.baseline->status != "correct" && !r.baseline->reason.empty()) out << ": " << short_reason(r.baseline->reason);
    out << "\n";
  }
  if (r.usage.prompt_tokens + r.usage.completion_tokens > 0) {
    out << "tokens: " << r.usage.prompt_tokens << " prompt + " << r.usage.completion_tokens << " completion ("
        << r.usage.reasoning_tokens << " reasoning)" << (r.usage.estimated ? ", partly estimated" : "");
    if (r.usage.cost_usd > 0) out << " · $" << format_number(r.usage.cost_usd);
    out << "\n";
  }
  if (r.best) {
    out << "best: candidate #" << r.best->id << " (round " << r.best->round << ", " << r.best->origin
        << "), re-verified on fresh seeds: " << (r.best_p50_us ? format_number(*r.best_p50_us) : "?") << " µs";
    out << vs_original(r.speedup_vs_kernel, r.speedup_vs_kernel_range, "faster than the original");
    const auto& recheck = r.best_recheck && r.best_recheck->speedup ? r.best_recheck->speedup : std::nullopt;
    const std::string eager = eager_text(r.speedup_eager, recheck ? recheck->eager_range : std::nullopt);
    if (!eager.empty()) out << " · " << eager;
    if (auto c = format_speedup(r.speedup_compile, recheck ? recheck->compile_range : std::nullopt); !c.empty())
      out << " · " << c << " torch.compile";
    out << "\n";
    if (!eager.empty()) out << kEagerMeaning;
    if (!r.best->flags.empty()) {
      out << "compiler flags:";
      for (const auto& f : r.best->flags) out << " " << f;
      out << (r.best->source.find("hone: flags=") != std::string::npos
                  ? " (in the kernel's `// hone: flags=` line: the applied file builds with them)\n"
                  : "\n");
    }
    out << (r.diff.empty() ? "(same source; only the compiler flags differ)\n" : r.diff);
  } else if (r.status != "failed") {
    if (r.baseline && r.baseline->speedup_eager) out << kEagerMeaning;
    out << "no verified candidate beat the original kernel\n";
  }
  if (r.status == "interrupted" || r.status == "failed" || r.stop_reason == "budget")
    out << "resume with: hone optimize --resume " << r.run_id << " (store: " << store.string() << ")\n";
  return out.str();
}

}  // namespace hone::cli
