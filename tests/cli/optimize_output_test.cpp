// tests/cli/optimize_output_test.cpp: `hone optimize`'s progress lines and final report in-process:
// the speedup over the original kernel is a number only when both times were quiet, else the
// range from both sides' p10..p90 marked noisy (issue 14).
#include <gtest/gtest.h>

#include "cli/cmd_optimize_output.h"

namespace hone::cli {
namespace {

using protocol::OptimizeEvent;
using protocol::OptimizeResult;
using protocol::SpeedupRange;

OptimizeEvent verified(std::optional<double> point, std::optional<SpeedupRange> range) {
  OptimizeEvent e;
  e.kind = OptimizeEvent::Kind::Verified;
  e.candidate_id = 3;
  e.status = "correct";
  e.tried = "BLOCK=8";
  e.p50_us = 40.0;
  e.speedup_vs_kernel = point;
  e.speedup_vs_kernel_range = range;
  return e;
}

TEST(OptimizeOutput, ACandidateLineShowsAPointOrANoisyRangeOverTheOriginal) {
  EXPECT_NE(candidate_text(verified(2.0, std::nullopt)).find("· 2× the original ·"), std::string::npos);
  const std::string noisy = candidate_text(verified(std::nullopt, SpeedupRange{1.12, 1.64}));
  EXPECT_NE(noisy.find("· 1.1–1.6× the original (noisy) ·"), std::string::npos) << noisy;
  EXPECT_EQ(candidate_text(verified(std::nullopt, std::nullopt)).find("the original"), std::string::npos);
}

TEST(OptimizeOutput, TheReportSaysFasterOnlyForAPoint) {
  OptimizeResult r;
  r.status = "finished";
  r.stop_reason = "rounds";
  r.best = protocol::CandidateSummary{};
  r.best->id = 4;
  r.best_p50_us = 40.0;
  r.speedup_vs_kernel = 1.5;
  EXPECT_NE(result_text(r, "hone.db").find("· 1.5× faster than the original"), std::string::npos);
  r.speedup_vs_kernel.reset();
  r.speedup_vs_kernel_range = SpeedupRange{1.12, 1.64};
  const std::string text = result_text(r, "hone.db");
  EXPECT_NE(text.find("· 1.1–1.6× the original (noisy)"), std::string::npos) << text;
  EXPECT_EQ(text.find("faster than the original"), std::string::npos) << text;
}

TEST(OptimizeOutput, TheRunsColumnWordsMatch) {
  EXPECT_EQ(vs_original_text(2.5, std::nullopt), "2.5× the original");
  EXPECT_EQ(vs_original_text(std::nullopt, SpeedupRange{0.9, 1.3}), "0.9–1.3× the original (noisy)");
  EXPECT_EQ(vs_original_text(std::nullopt, std::nullopt), "");
  EXPECT_EQ(eager_text(2.13, std::nullopt), "2.1× eager");
  EXPECT_EQ(eager_text(std::nullopt, SpeedupRange{1.42, 2.1}), "1.4–2.1× eager (noisy)");
  EXPECT_EQ(eager_text(2.13, SpeedupRange{1.42, 2.1}), "2.1× eager") << "a point wins over a range";
  EXPECT_EQ(eager_text(std::nullopt, std::nullopt), "");
}

}  // namespace
}  // namespace hone::cli
