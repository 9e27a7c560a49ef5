// toolchain/source_text.h: lexical helpers for reading C++/CUDA source without a compiler: views
// with comments (and string literals) blanked out but line structure kept, line numbers of
// offsets, balanced-bracket scanning. Used by the source analysis; pure functions, any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

// The text with every comment replaced by spaces (newlines kept, so offsets and lines match).
// When blank_literals is set, the contents of string and character literals are blanked too
// (the quotes stay). Preprocessor continuation lines are left as they are.
std::string blank_comments(std::string_view text, bool blank_literals);

// Maps byte offsets to 1-based line numbers.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  int line_of(std::size_t offset) const;

 private:
  std::vector<std::size_t> starts_;
};

// Offset of the bracket that closes the one at `open` ('(' ')', '[' ']', '{' '}', '<' '>'),
// or npos when it is not closed. Expects text with literals blanked.
std::size_t matching_bracket(std::string_view text, std::size_t open);

// Splits at top-level commas (outside (), [] and {}); trims each part.
std::vector<std::string> split_top_level(std::string_view text);

bool is_ident_char(char c);
std::string_view trim(std::string_view s);

}  // namespace hone::toolchain
