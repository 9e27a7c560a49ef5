// tests/lsp/documents_test.cpp: positions in UTF-16 and UTF-8, incremental edits, file URIs.
#include <gtest/gtest.h>

#include "lsp/documents.h"

namespace hone::lsp {
namespace {

// "é" is 2 UTF-8 bytes and 1 UTF-16 unit; "𝄞" is 4 bytes and 2 units.
const std::string kText = "a\xC3\xA9" "b\n\xF0\x9D\x84\x9Ex\r\nlast";

TEST(Positions, OffsetsInBothEncodings) {
  EXPECT_EQ(offset_of(kText, {0, 2}, PositionEncoding::utf16), 3u);  // after "aé"
  EXPECT_EQ(offset_of(kText, {0, 3}, PositionEncoding::utf8), 3u);
  EXPECT_EQ(offset_of(kText, {1, 2}, PositionEncoding::utf16), 9u);  // after the clef
  EXPECT_EQ(offset_of(kText, {1, 4}, PositionEncoding::utf8), 9u);
  EXPECT_EQ(offset_of(kText, {2, 0}, PositionEncoding::utf16), 12u);  // after \r\n
  EXPECT_EQ(offset_of(kText, {0, 99}, PositionEncoding::utf16), 4u);  // clamped to the line end
  EXPECT_EQ(offset_of(kText, {9, 0}, PositionEncoding::utf16), kText.size());
}

TEST(Positions, RoundTripAndLineHelpers) {
  for (auto enc : {PositionEncoding::utf16, PositionEncoding::utf8}) {
    for (std::size_t off : {0u, 1u, 3u, 4u, 5u, 9u, 10u, 12u, 16u}) {
      EXPECT_EQ(offset_of(kText, position_of(kText, off, enc), enc), off) << off;
    }
  }
  EXPECT_EQ(line_text(kText, 1), "\xF0\x9D\x84\x9Ex");
  EXPECT_EQ(line_length(kText, 1, PositionEncoding::utf16), 3);
  EXPECT_EQ(line_length(kText, 1, PositionEncoding::utf8), 5);
  EXPECT_EQ(column_in_encoding("a\xC3\xA9" "b", 3, PositionEncoding::utf16), 2);
}

TEST(Uris, DecodeAndEncodeFileUris) {
  EXPECT_EQ(path_from_uri("file:///tmp/a%20b/k.cu"), std::filesystem::path("/tmp/a b/k.cu"));
  EXPECT_EQ(path_from_uri("file:///tmp/x/../k.cu"), std::filesystem::path("/tmp/k.cu"));
  EXPECT_FALSE(path_from_uri("untitled:Untitled-1"));
  EXPECT_FALSE(path_from_uri("not a uri"));
  EXPECT_EQ(uri_from_path("/tmp/a b/k#1.cu"), "file:///tmp/a%20b/k%231.cu");
  EXPECT_EQ(path_from_uri(uri_from_path("/tmp/a b/k#1.cu")), std::filesystem::path("/tmp/a b/k#1.cu"));
}

TEST(DocumentStore, AppliesIncrementalAndFullChanges) {
  DocumentStore store;
  ASSERT_FALSE(store.open({"file:///k.cu", "cuda-cpp", 1, "int x;\nint \xF0\x9D\x84\x9E y;\n"}));
  DidChangeParams change{{"file:///k.cu"}, 2, {}};
  change.contentChanges.push_back({Range{{1, 4}, {1, 6}}, "z"});  // the clef, 2 UTF-16 units
  change.contentChanges.push_back({Range{{0, 4}, {0, 5}}, "xx"});
  ASSERT_FALSE(store.change(change, PositionEncoding::utf16));
  EXPECT_EQ(store.get("file:///k.cu")->text, "int xx;\nint z y;\n");
  EXPECT_EQ(store.get("file:///k.cu")->version, 2);
  DidChangeParams full{{"file:///k.cu"}, 3, {{std::nullopt, "new"}}};
  ASSERT_FALSE(store.change(full, PositionEncoding::utf16));
  EXPECT_EQ(store.get("file:///k.cu")->text, "new");
  EXPECT_EQ(store.get("file:///k.cu")->path, std::filesystem::path("/k.cu"));
}

TEST(DocumentStore, RefusesWhatItCannotApply) {
  DocumentStore store;
  EXPECT_TRUE(store.open({"untitled:1", "cuda-cpp", 1, ""}));
  DidChangeParams change{{"file:///missing.cu"}, 2, {{std::nullopt, "x"}}};
  EXPECT_TRUE(store.change(change, PositionEncoding::utf16));
  ASSERT_FALSE(store.open({"file:///k.cu", "cuda-cpp", 1, "abc"}));
  DidChangeParams backwards{{"file:///k.cu"}, 2, {{Range{{0, 2}, {0, 1}}, "x"}}};
  EXPECT_TRUE(store.change(backwards, PositionEncoding::utf16));
  EXPECT_EQ(store.get("file:///k.cu")->text, "abc");
  store.close("file:///k.cu");
  EXPECT_EQ(store.size(), 0u);
}

}  // namespace
}  // namespace hone::lsp
