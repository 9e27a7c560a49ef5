// cli/cmd_optimize_output.h: how `hone optimize` shows a run: a live status line on a terminal
// (round, candidates, best verified speedup), plain lines otherwise (both on stderr), and the
// final report with the winner's diff (stdout). Used on the CLI's threads; show() is called one
// event at a time by the optimizer.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "protocol/optimize_result.h"

namespace hone::cli {

class ProgressView {
 public:
  explicit ProgressView(bool live) : live_(live) {}
  ~ProgressView() { clear(); }
  void show(const protocol::OptimizeEvent& e);
  void clear();

 private:
  void line(const std::string& text);
  bool live_;
  bool shown_ = false;
  bool labelled_ = false;  // the line saying what the candidate lines are was printed
};

// "2.1× the original" (`point_words` after a point), or "1.1–1.6× the original (noisy)" when a
// noisy time left only a range (issue 14); "" when neither is known. `hone runs` says it too.
std::string vs_original_text(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range,
                             const std::string& point_words = "the original");

// "2.1× eager", or "1.4–2.1× eager (noisy)" when a noisy time left only a range (issue 14); ""
// when neither is known. The progress lines, the report, `hone runs` and `hone bench` say it alike.
std::string eager_text(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range);

// One candidate's own result as its progress line says it: "#5 done: correct · 81.2 µs · 2.1× the
// original · 0.45× eager · tried BLOCK=32, flags -march=native".
std::string candidate_text(const protocol::OptimizeEvent& e);

// The final report: outcome, counts, the original's and the winner's verified times, the flags,
// token use, then the unified diff (or why there is none, and how to resume).
std::string result_text(const protocol::OptimizeResult& result, const std::filesystem::path& store);

}  // namespace hone::cli
