// tests/toolchain/listing_counters_test.cpp: a profile's per-instruction SASS counters beside an
// nvdisasm listing (fixtures/scale.nvdisasm, hand-written in nvdisasm's --print-line-info
// layout): instruction offsets read from `/*0040*/`, the counted kernel found by symbol or by
// name, counts on the right lines (the load and the store of `y[i] = a * x[i]`), sums per
// source line, and offsets the listing does not have counted apart.
#include <gtest/gtest.h>

#include "support/hash.h"
#include "toolchain/listing_counters.h"

namespace hone::toolchain {
namespace {

using protocol::SassCounters;
using protocol::SassKernel;

const std::string kInst = "smsp__sass_inst_executed";
const std::string kThread = "smsp__sass_thread_inst_executed";

std::vector<FunctionListing> fixture() {
  return sass_listings(read_file(std::string(HONE_TOOLCHAIN_TEST_DIR) + "/fixtures/scale.nvdisasm"));
}

// What CUPTI would count for `scale` on n = 1000 elements in 32 blocks of 32 threads: 32 warps
// run the prologue, 31.25 warps' worth of threads pass `i < n` (the last warp has 8 of 32).
SassKernel scale_counts() {
  SassKernel k;
  k.function = "_Z5scalePKfPfif";
  k.cubin_crc = 0x1234abcd;
  for (std::uint32_t pc = 0; pc <= 0x70; pc += 0x10) k.instructions.push_back({pc, {{kInst, 32}, {kThread, 1024}}});
  for (std::uint32_t pc = 0x80; pc <= 0x110; pc += 0x10) k.instructions.push_back({pc, {{kInst, 32}, {kThread, 1000}}});
  k.instructions.push_back({0x400, {{kInst, 1}, {kThread, 1}}});  // an offset this listing has no instruction at
  return k;
}

std::size_t line_with(const FunctionListing& f, const std::string& text) {
  for (std::size_t i = 0; i < f.lines.size(); ++i)
    if (f.lines[i].text.find(text) != std::string::npos) return i;
  ADD_FAILURE() << "no line with " << text;
  return 0;
}

TEST(ListingCounters, ReadsNvdisasmOffsetsAndNothingElse) {
  EXPECT_EQ(sass_line_offset("        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;"), 0xb0u);
  EXPECT_EQ(sass_line_offset("\t/*1a2F*/ @P0 EXIT ;"), 0x1a2fu);
  EXPECT_EQ(sass_line_offset("        /*0000*/                   LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */"), 0u);
  EXPECT_FALSE(sass_line_offset("                                                      /* 0x000fe20000000f00 */"));
  EXPECT_FALSE(sass_line_offset("\t//## File \"/work/k/scale.cu\", line 5"));
  EXPECT_FALSE(sass_line_offset(".L_x_0:"));
  EXPECT_FALSE(sass_line_offset(".text._Z5scalePKfPfif:"));
  EXPECT_FALSE(sass_line_offset("        /*123456789*/ NOP;"));
  EXPECT_FALSE(sass_line_offset(""));
}

TEST(ListingCounters, FindsTheCountedKernelBySymbolThenByName) {
  const auto listings = fixture();
  ASSERT_EQ(listings.size(), 2u);
  ASSERT_EQ(listings[1].name, "scale");
  SassCounters c;
  c.available = true;
  SassKernel copy;
  copy.function = "_Z4copyPKfPfi";
  c.kernels = {copy, scale_counts()};
  EXPECT_EQ(kernel_counters_for(c, listings[1]), &c.kernels[1]);
  EXPECT_EQ(kernel_counters_for(c, listings[0]), &c.kernels[0]);
  c.kernels[1].function = "scale(float const*, float*, int, float)";  // a name CUPTI gave demangled
  EXPECT_EQ(kernel_counters_for(c, listings[1]), &c.kernels[1]);
  c.kernels.erase(c.kernels.begin() + 1);
  EXPECT_EQ(kernel_counters_for(c, listings[1]), nullptr);
}

TEST(ListingCounters, PutsEachInstructionsCountsOnItsLineAndSumsThemPerSourceLine) {
  const auto listings = fixture();
  const FunctionListing& scale = listings[1];
  const ListingCounts counted = count_listing(scale, scale_counts());
  ASSERT_EQ(counted.lines.size(), scale.lines.size());
  EXPECT_EQ(counted.matched, 18u);
  EXPECT_EQ(counted.unmatched, 1u) << "offset 0x400 is past the listing";

  const std::size_t load = line_with(scale, "LDG.E R2");
  const std::size_t store = line_with(scale, "STG.E");
  ASSERT_TRUE(counted.lines[load]);
  EXPECT_EQ(counted.lines[load]->at(kInst), 32u);
  EXPECT_EQ(counted.lines[load]->at(kThread), 1000u);
  ASSERT_TRUE(counted.lines[store]);
  EXPECT_EQ(counted.lines[store]->at(kThread), 1000u);
  EXPECT_EQ(scale.lines[load].line, 5);
  EXPECT_EQ(counted.lines[line_with(scale, "@P0 EXIT")]->at(kThread), 1024u);
  // Labels, the section line and the padding past the counted offsets carry nothing.
  EXPECT_FALSE(counted.lines[line_with(scale, ".L_x_0:")]);
  EXPECT_FALSE(counted.lines[line_with(scale, ".text._Z5scalePKfPfif:")]);
  EXPECT_FALSE(counted.lines[line_with(scale, "/*0130*/")]);

  ASSERT_EQ(counted.source_lines.size(), 4u);  // lines 3, 4, 5, 6
  const SourceLineCounts& line3 = counted.source_lines[0];
  EXPECT_EQ(line3.file, "/work/k/scale.cu");
  EXPECT_EQ(line3.line, 3);
  EXPECT_EQ(line3.values.at(kInst), 6u * 32);
  const SourceLineCounts& line5 = counted.source_lines[2];
  EXPECT_EQ(line5.line, 5);
  EXPECT_EQ(line5.values.at(kInst), 9u * 32) << "the nine instructions of y[i] = a * x[i]";
  EXPECT_EQ(line5.values.at(kThread), 9u * 1000);
  EXPECT_EQ(counted.source_lines[3].line, 6);
  EXPECT_EQ(counted.source_lines[3].values.at(kInst), 32u);
}

TEST(ListingCounters, AnotherKernelsCountsMatchNothingOfThisOne) {
  const auto listings = fixture();
  SassKernel other;
  other.function = "_Z5otherv";
  other.instructions = {{0x1000, {{kInst, 5}}}, {0x1010, {{kInst, 5}}}};
  const ListingCounts counted = count_listing(listings[1], other);
  EXPECT_EQ(counted.matched, 0u);
  EXPECT_EQ(counted.unmatched, 2u);
  EXPECT_TRUE(counted.source_lines.empty());
}

}  // namespace
}  // namespace hone::toolchain
