// tests/lsp/render_test.cpp: lens titles, hint labels, hover text and diagnostic ranges from
// verdict-shaped JSON (protocol/schema/verdict.schema.json).
#include <gtest/gtest.h>

#include "lsp/render.h"

namespace hone::lsp {
namespace {

using nlohmann::json;

TEST(Render, CorrectVerdictSummary) {
  json v = {{"status", "correct"}, {"timing", {{"p50_us", 41.23}}}, {"speedup", {{"eager", 1.8}, {"compile", 0.91}}}, {"flags", json::array()}};
  EXPECT_EQ(verdict_summary(v), "✓ correct · 41.2 µs · 1.8× eager · 0.91× compile");
  v["speedup"]["compile"] = nullptr;
  v["flags"] = {{{"id", "timing_noisy"}, {"message", "noisy"}}};
  EXPECT_EQ(verdict_summary(v), "✓ correct · 41.2 µs · 1.8× eager · ⚠ 1 flag");
}

TEST(Render, FailureSummaries) {
  json mismatch = {{"status", "incorrect"}, {"reason", "out of tolerance"},
                   {"correctness", {{"trials", {{{"seed", 1}, {"passed", true}},
                                                {{"seed", 2}, {"passed", false}, {"mismatch", {{"output", 0}, {"index", {3, 17}}, {"got", 0.51}, {"expected", 0.5}}}}}}}}};
  EXPECT_EQ(verdict_summary(mismatch), "✗ mismatch at out[3,17]: 0.51 vs 0.5");
  json nan_out = {{"status", "incorrect"}, {"reason", "r"},
                  {"correctness", {{"trials", {{{"seed", 1}, {"passed", false}, {"mismatch", {{"output", 1}, {"index", {0}}, {"got", "nan"}, {"expected", 2.0}}}}}}}}};
  EXPECT_EQ(verdict_summary(nan_out), "✗ mismatch at out1[0]: nan vs 2");
  json compile = {{"status", "compile_error"}, {"reason", "x"}, {"compile", {{"ok", false}, {"diagnostics", {{{"severity", "error"}}, {{"severity", "warning"}}, {{"severity", "error"}}}}}}};
  EXPECT_EQ(verdict_summary(compile), "✗ compile error: 2 errors");
  EXPECT_EQ(verdict_summary({{"status", "runtime_error"}, {"reason", "SIGSEGV in forward"}}), "✗ runtime error: SIGSEGV in forward");
}

TEST(Render, HintLabelAndHover) {
  json k = {{"name", "relu_kernel(const float*, float*, int)"}, {"mangled", "_Z"}, {"registers", 32}, {"static_shared_bytes", 4096},
            {"occupancy", {{"occupancy_pct", 75.0}, {"block_size", 256}, {"block_size_source", "launch_site"}, {"limited_by", "registers"}}}};
  EXPECT_EQ(kernel_hint_label(k), "32 regs · 4 KiB smem · 75% occ");
  EXPECT_EQ(kernel_hint_label({{"name", "k"}}), "");
  // profile.schema.json: candidate.kernels[] with derived counters and a roofline point.
  json profile = {{"candidate", {{"kernels", {{{"name", "relu_kernel(const float*, float*, int)"}, {"own", true}, {"duration_us", 41.2},
                                               {"grid", {64, 1, 1}}, {"block", {256, 1, 1}},
                                               {"derived", {{"dram_bytes", 8.0e8}, {"achieved_occupancy_pct", 71.5}}},
                                               {"roofline", {{"bound", "memory"}, {"pct_of_roofline", 81.5}, {"memory_pct", 81.5},
                                                             {"compute_pct", 3.0}, {"arithmetic_intensity", 0.25}}}}}},
                                  {"counters", {{"available", true}}}}}};
  std::string md = kernel_hover_markdown(k, profile);
  EXPECT_NE(md.find("limited by registers"), std::string::npos);
  EXPECT_NE(md.find("**Profile**: 41.2 µs, grid [64,1,1] × block [256,1,1]"), std::string::npos);
  EXPECT_NE(md.find("| dram_bytes | 800000000 |"), std::string::npos);
  EXPECT_NE(md.find("| achieved_occupancy_pct | 71.5 |"), std::string::npos);
  EXPECT_NE(md.find("memory-bound, 81.5% of the roofline (memory 81.5%, compute 3%), 0.25 FLOP/byte"), std::string::npos);
  json no_counters = {{"candidate", {{"kernels", json::array()}, {"counters", {{"available", false}, {"message", "insufficient privileges"}}}}}};
  EXPECT_NE(kernel_hover_markdown(k, no_counters).find("counters unavailable: insufficient privileges"), std::string::npos);
}

TEST(Render, DiagnosticRangesAreZeroBased) {
  std::string text = "int x;\n  bad_call(1);\n";
  json d = to_lsp_diagnostic({{"file", "k.cu"}, {"line", 2}, {"column", 3}, {"severity", "error"}, {"message", "undefined"}, {"source", "nvcc"}},
                             text, PositionEncoding::utf16);
  EXPECT_EQ(d["range"], json({{"start", {{"line", 1}, {"character", 2}}}, {"end", {{"line", 1}, {"character", 10}}}}));
  EXPECT_EQ(d["severity"], 1);
  EXPECT_EQ(d["source"], "hone nvcc");
  json whole = to_lsp_diagnostic({{"line", 2}, {"column", 0}, {"severity", "warning"}, {"message", "w"}}, text, PositionEncoding::utf16);
  EXPECT_EQ(whole["range"]["start"]["character"], 2);
  EXPECT_EQ(whole["range"]["end"]["character"], 14);
  EXPECT_EQ(whole["severity"], 2);
  json nowhere = to_lsp_diagnostic({{"line", 0}, {"column", 0}, {"severity", "error"}, {"message", "link"}}, text, PositionEncoding::utf16);
  EXPECT_EQ(nowhere["range"]["start"]["line"], 0);
}

TEST(Render, VerdictProblemsSitOnForward) {
  std::string text = "#include \"hone.h\"\nvoid forward(hone::In<float> x) {}\n";
  json v = {{"status", "incorrect"}, {"reason", "wrong"}, {"flags", {{{"id", "weak_task"}, {"message", "task is weak"}}}}};
  auto ds = verdict_diagnostics(v, text, 1, PositionEncoding::utf16);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0]["range"]["start"], json({{"line", 1}, {"character", 5}}));
  EXPECT_EQ(ds[0]["range"]["end"], json({{"line", 1}, {"character", 12}}));
  EXPECT_EQ(ds[0]["severity"], 1);
  EXPECT_EQ(ds[1]["code"], "weak_task");
  json slow = {{"status", "correct"}, {"speedup", {{"eager", 0.5}}}};
  auto slow_ds = verdict_diagnostics(slow, text, 1, PositionEncoding::utf16);
  ASSERT_EQ(slow_ds.size(), 1u);
  EXPECT_EQ(slow_ds[0]["code"], "slower_than_eager");
}

TEST(Render, Suggestions) {
  // profile.schema.json#/$defs/suggestion
  json result = {{"profile", {{"suggestions", {{{"id", "narrow_loads"}, {"title", "Use 16-byte loads"}, {"detail", "d"}, {"kernel", "k"},
                                                {"location", {{"file", "k.cu"}, {"line", 12}, {"scope", "line"}}},
                                                {"evidence", {{{"metric", "bytes_per_sector"}, {"value", 8}, {"comparison", "<"}, {"threshold", 32}, {"unit", "B"}}}},
                                                {"gain", {{"speedup", 1.5}, {"basis", "b"}}}, {"saved_us", 3.0}},
                                               {{"id", "small_grid"}, {"title", "Grid too small"}, {"evidence", json::array()},
                                                {"location", nullptr}, {"gain", nullptr}}}}}}};
  auto s = suggestions_of(result);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(suggestion_line(s[0]), 12);
  EXPECT_FALSE(suggestion_line(s[1]));
  EXPECT_EQ(suggestion_text(s[0]), "Use 16-byte loads (bytes_per_sector = 8 B < 32) — est. up to 1.5× faster");
  EXPECT_EQ(suggestion_text(s[1]), "Grid too small");
}

}  // namespace
}  // namespace hone::lsp
