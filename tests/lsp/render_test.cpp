// tests/lsp/render_test.cpp: LSP diagnostic ranges from toolchain diagnostics, verdict problems
// on `forward` and profiler suggestions on their lines (the words are protocol/verdict_text.h's,
// tested in tests/protocol).
#include <gtest/gtest.h>

#include "lsp/render.h"

namespace hone::lsp {
namespace {

using nlohmann::json;
using protocol::Diagnostic;
using protocol::DiagnosticSource;
using protocol::Severity;

TEST(Render, DiagnosticRangesAreZeroBased) {
  std::string text = "int x;\n  bad_call(1);\n";
  json d = to_lsp_diagnostic(Diagnostic{"k.cu", 2, 3, Severity::Error, "undefined", DiagnosticSource::Nvcc}, text,
                             PositionEncoding::utf16);
  EXPECT_EQ(d["range"], json({{"start", {{"line", 1}, {"character", 2}}}, {"end", {{"line", 1}, {"character", 10}}}}));
  EXPECT_EQ(d["severity"], 1);
  EXPECT_EQ(d["source"], "hone nvcc");
  json whole = to_lsp_diagnostic(Diagnostic{"", 2, 0, Severity::Warning, "w", DiagnosticSource::Hone}, text, PositionEncoding::utf16);
  EXPECT_EQ(whole["range"]["start"]["character"], 2);
  EXPECT_EQ(whole["range"]["end"]["character"], 14);
  EXPECT_EQ(whole["severity"], 2);
  EXPECT_EQ(whole["source"], "hone");
  json nowhere = to_lsp_diagnostic(Diagnostic{"", 0, 0, Severity::Error, "link", DiagnosticSource::Linker}, text,
                                   PositionEncoding::utf16);
  EXPECT_EQ(nowhere["range"]["start"]["line"], 0);
}

TEST(Render, VerdictProblemsSitOnForward) {
  std::string text = "#include \"hone.h\"\nvoid forward(hone::In<float> x) {}\n";
  protocol::Verdict v;
  v.status = protocol::Status::Incorrect;
  v.reason = "wrong";
  v.flags = {{"weak_task", "task is weak"}};
  auto ds = verdict_diagnostics(v, text, 1, PositionEncoding::utf16);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0]["range"]["start"], json({{"line", 1}, {"character", 5}}));
  EXPECT_EQ(ds[0]["range"]["end"], json({{"line", 1}, {"character", 12}}));
  EXPECT_EQ(ds[0]["severity"], 1);
  EXPECT_EQ(ds[0]["message"], "incorrect: wrong");
  EXPECT_EQ(ds[1]["code"], "weak_task");
  protocol::Verdict slow;
  slow.status = protocol::Status::Correct;
  slow.speedup = protocol::Speedup{0.5, std::nullopt};
  auto slow_ds = verdict_diagnostics(slow, text, 1, PositionEncoding::utf16);
  ASSERT_EQ(slow_ds.size(), 1u);
  EXPECT_EQ(slow_ds[0]["code"], "slower_than_eager");
}

TEST(Render, SuggestionsSitOnTheirLines) {
  std::string text = "a\nb\n    c[i] = d[i * 8];\n";
  protocol::Suggestion s;
  s.id = "narrow_loads";
  s.title = "Use 16-byte loads";
  s.location = protocol::SourceLocation{"k.cu", 3, "line", {3}};
  auto d = suggestion_diagnostic(s, text, PositionEncoding::utf16);
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)["range"]["start"], json({{"line", 2}, {"character", 4}}));
  EXPECT_EQ((*d)["severity"], 3);
  EXPECT_EQ((*d)["code"], "narrow_loads");
  EXPECT_EQ((*d)["source"], "hone profile");
  EXPECT_EQ((*d)["message"], "Use 16-byte loads");
  s.location.reset();
  EXPECT_FALSE(suggestion_diagnostic(s, text, PositionEncoding::utf16)) << "a suggestion the profiler could not place has no line";
}

}  // namespace
}  // namespace hone::lsp
