// tests/lsp/machine_code_view_test.cpp: the hone.showSass reply and the .hone/asm listing from the
// engine's MachineCode: without a profile the note says so and no line has counters; with one,
// each instruction's counters ride on its line (JSON) and stand in aligned columns before it
// (text), and the per-source-line sums are 0-based like every LSP line; PTX has neither.
#include <gtest/gtest.h>

#include "lsp/machine_code_view.h"

namespace hone::lsp {
namespace {

using nlohmann::json;

const std::string kInst = "smsp__sass_inst_executed";
const std::string kThread = "smsp__sass_thread_inst_executed";

MachineCode sass(bool counted) {
  MachineCode c;
  c.kind = "sass";
  c.symbol = "_Z5scalePKfPfif";
  c.name = "scale";
  c.functions = {"copy", "scale"};
  c.lines = {{".text._Z5scalePKfPfif:", "", 0, std::nullopt},
             {"        /*0070*/               @P0 EXIT ;", "/k/scale.cu", 4, std::nullopt},
             {"        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;", "/k/scale.cu", 5, std::nullopt},
             {"        /*0050*/                   IMAD R7, R0, UR4, R7 ;", "/k/util.cuh", 2, std::nullopt}};
  if (!counted) {
    c.counters_note = "no profile of this build yet: run Profile to see per-line counters";
    return c;
  }
  c.lines[1].counters = protocol::SassCounts{{kInst, 32}, {kThread, 1024}};
  c.lines[2].counters = protocol::SassCounts{{kInst, 32}, {kThread, 1000}};
  c.counter_metrics = {kInst, kThread};
  c.counters_note = "counters of the last profile of this build (2025-06-01T12:00:00Z), per SASS instruction";
  c.profiled_at = "2025-06-01T12:00:00Z";
  c.source_counters = {{"/k/scale.cu", 5, {{kInst, 288}, {kThread, 9000}}}, {"/k/util.cuh", 2, {{kInst, 32}}}};
  return c;
}

TEST(MachineCodeView, WithoutAProfileTheReplyAndTheListingSaySo) {
  json j = machine_code_json(sass(false), "/k/scale.cu", "file:///k/scale.cu");
  ASSERT_TRUE(j.contains("counters"));
  EXPECT_EQ(j["counters"]["note"], "no profile of this build yet: run Profile to see per-line counters");
  EXPECT_EQ(j["counters"]["metrics"], json::array());
  EXPECT_EQ(j["counters"]["sourceLines"], json::array());
  EXPECT_FALSE(j["counters"].contains("profiledAt"));
  for (const json& l : j["lines"]) EXPECT_FALSE(l.contains("counters")) << l.dump();
  const std::string text = annotated_listing(sass(false));
  EXPECT_EQ(text.rfind("// no profile of this build yet: run Profile to see per-line counters\n.text._Z5scalePKfPfif:\n", 0), 0u) << text;
}

TEST(MachineCodeView, CountersRideOnTheirLinesAndSumPerSourceLine) {
  json j = machine_code_json(sass(true), "/k/scale.cu", "file:///k/scale.cu");
  EXPECT_EQ(j["lines"][2]["counters"], (json{{kInst, 32}, {kThread, 1000}}));
  EXPECT_EQ(j["lines"][2]["line"], 4) << "0-based";
  EXPECT_EQ(j["lines"][2]["inFile"], true);
  EXPECT_FALSE(j["lines"][0].contains("counters"));
  EXPECT_EQ(j["counters"]["metrics"], (json{kInst, kThread}));
  EXPECT_EQ(j["counters"]["profiledAt"], "2025-06-01T12:00:00Z");
  ASSERT_EQ(j["counters"]["sourceLines"].size(), 2u);
  EXPECT_EQ(j["counters"]["sourceLines"][0], (json{{"file", "/k/scale.cu"}, {"line", 4}, {"inFile", true}, {"counters", {{kInst, 288}, {kThread, 9000}}}}));
  EXPECT_EQ(j["counters"]["sourceLines"][1]["inFile"], false) << "a header's line is not the document's";
  EXPECT_EQ(j["text"].get<std::string>().find("1,000"), std::string::npos) << "the plain text is the listing alone";
}

TEST(MachineCodeView, TheListingPutsAlignedCounterColumnsBeforeEachLine) {
  const std::string text = annotated_listing(sass(true));
  std::vector<std::string> lines;
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
  }
  ASSERT_GE(lines.size(), 6u) << text;
  EXPECT_EQ(lines[0], "// counters of the last profile of this build (2025-06-01T12:00:00Z), per SASS instruction");
  EXPECT_EQ(lines[1], "// warp inst  thread inst  | ");
  EXPECT_EQ(lines[3].rfind("          32        1,024  |         /*0070*/               @P0 EXIT ;", 0), 0u) << lines[3];
  EXPECT_NE(lines[3].find("// scale.cu:4"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("1,000  |         /*00b0*/"), std::string::npos) << lines[4];
  const std::size_t bar = lines[1].find('|');
  for (std::size_t i = 2; i < 6; ++i) EXPECT_EQ(lines[i].find('|'), bar) << lines[i];
}

TEST(MachineCodeView, PtxHasNoCounters) {
  MachineCode ptx;
  ptx.kind = "ptx";
  ptx.lines = {{"ld.global.f32 %f1, [%rd4];", "/k/scale.cu", 5, std::nullopt}};
  json j = machine_code_json(ptx, "/k/scale.cu", "file:///k/scale.cu");
  EXPECT_FALSE(j.contains("counters"));
  EXPECT_EQ(annotated_listing(ptx).rfind("ld.global.f32 %f1, [%rd4];", 0), 0u);
  EXPECT_EQ(counter_title("smsp__sass_sectors_mem_global"), "sectors");
  EXPECT_EQ(counter_title("smsp__sass_inst_executed_op_global_ld"), "inst_executed_op_global_ld");
}

}  // namespace
}  // namespace hone::lsp
