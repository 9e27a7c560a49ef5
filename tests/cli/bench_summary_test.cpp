// tests/cli/bench_summary_test.cpp: fast_p counts over ALL tasks (missing and failing kernels count
// against it), geometric means only over correct kernels, and the text, JSON and SVG agree.
#include <gtest/gtest.h>

#include <cmath>

#include "cli/bench_summary.h"

namespace hone::cli {
namespace {

BenchRow row(std::string status, std::optional<double> eager, std::optional<double> compile = std::nullopt) {
  BenchRow r;
  static int n = 0;
  r.task = "t" + std::to_string(++n) + ".py";
  r.status = std::move(status);
  r.speedup_eager = eager;
  r.speedup_compile = compile;
  if (r.status != "correct") r.reason = "because";
  return r;
}

std::vector<BenchRow> sample() {
  return {row("correct", 2.0, 0.5), row("correct", 0.5, 0.25), row("incorrect", 9.0, 9.0), row("missing", std::nullopt),
          row("correct", 1.0, std::nullopt)};
}

TEST(BenchSummary, FastPCountsEveryTaskInTheDenominator) {
  auto rows = sample();
  EXPECT_DOUBLE_EQ(fast_p(rows, 0, false), 3.0 / 5);    // correct share
  EXPECT_DOUBLE_EQ(fast_p(rows, 1, false), 1.0 / 5);    // strictly faster than 1x: only the 2x one
  EXPECT_DOUBLE_EQ(fast_p(rows, 0.4, false), 3.0 / 5);
  EXPECT_DOUBLE_EQ(fast_p(rows, 0.4, true), 1.0 / 5);   // the row without a compile speedup never counts above 0
  EXPECT_DOUBLE_EQ(fast_p(rows, 0, true), 3.0 / 5);
  EXPECT_DOUBLE_EQ(fast_p({}, 1, false), 0);
}

TEST(BenchSummary, GeomeanOnlyOverCorrectKernelsWithASpeedup) {
  auto rows = sample();
  EXPECT_NEAR(*geomean_speedup(rows, false), 1.0, 1e-12);           // (2 * 0.5 * 1)^(1/3)
  EXPECT_NEAR(*geomean_speedup(rows, true), std::sqrt(0.125), 1e-12);  // the incorrect 9x is ignored
  EXPECT_FALSE(geomean_speedup({row("incorrect", 3.0)}, false).has_value());
}

TEST(BenchSummary, JsonTextAndSvgCarryTheSameNumbers) {
  auto rows = sample();
  auto j = bench_json(rows);
  EXPECT_EQ(j["summary"]["tasks"], 5);
  EXPECT_EQ(j["summary"]["correct"], 3);
  EXPECT_EQ(j["summary"]["by_status"]["missing"], 1);
  EXPECT_DOUBLE_EQ(j["summary"]["fast_p"]["eager"]["1"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(j["summary"]["fast_p"]["eager"]["1.5"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(j["summary"]["fast_p"]["compile"]["0"].get<double>(), 0.6);
  EXPECT_TRUE(j["tasks"][3]["kernel"].is_null());
  EXPECT_TRUE(j["tasks"][3]["p50_us"].is_null());
  std::string text = bench_text(rows);
  EXPECT_NE(text.find("3 of 5 correct"), std::string::npos) << text;
  EXPECT_NE(text.find("fast_1 20%"), std::string::npos) << text;
  EXPECT_NE(text.find("fast_0 60%"), std::string::npos) << text;
  std::string svg = bench_svg(rows, "a <title> & more");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("a &lt;title&gt; &amp; more"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(BenchSummary, ANoisyRowCountsOnlyWhereItsRangeClearsTheThreshold) {
  auto rows = sample();
  BenchRow noisy = row("correct", std::nullopt);
  noisy.speedup_eager_range = protocol::SpeedupRange{1.2, 2.6};
  rows.push_back(noisy);
  EXPECT_DOUBLE_EQ(fast_p(rows, 1, false), 2.0 / 6);    // the 2x row and the range above 1.2
  EXPECT_DOUBLE_EQ(fast_p(rows, 1.5, false), 1.0 / 6);  // 1.2-2.6 may be slower than 1.5x: not counted
  EXPECT_DOUBLE_EQ(fast_p(rows, 0, false), 4.0 / 6);
  EXPECT_NEAR(*geomean_speedup(rows, false), 1.0, 1e-12) << "a range is no point for the geometric mean";
  auto j = bench_json(rows);
  EXPECT_TRUE(j["tasks"][5]["speedup"]["eager"].is_null());
  EXPECT_DOUBLE_EQ(j["tasks"][5]["speedup"]["eager_range"]["low"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(j["summary"]["fast_p"]["eager"]["1"].get<double>(), 2.0 / 6);
  std::string text = bench_text(rows);
  EXPECT_NE(text.find("1.2–2.6×"), std::string::npos) << text;
  EXPECT_NE(text.find("1 correct row timed noisily"), std::string::npos) << text;
}

}  // namespace
}  // namespace hone::cli
