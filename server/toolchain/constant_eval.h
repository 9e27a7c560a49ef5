// toolchain/constant_eval.h: integer constants a kernel file makes visible (#define NAME 256,
// constexpr int kBlock = 256;, dim3 block(16, 16);) and a small evaluator of integer expressions
// over them, so a launch site's block size or a __launch_bounds__ argument can be read without a
// compiler. Used by the source analysis; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace hone::toolchain {

class ConstantTable {
 public:
  // Adds the definitions found in `code` (comments and literals blanked). A name defined twice
  // with different expressions is ambiguous and evaluates to nothing.
  void scan(std::string_view code);

  // The value of an integer expression (+ - * / % << >>, parentheses, casts to integer types,
  // dim3(x, y, z) and {x, y, z} as the product of their parts); nullopt when any part is unknown.
  std::optional<std::int64_t> evaluate(std::string_view expression) const;

 private:
  void define(const std::string& name, std::string_view expression);
  std::optional<std::int64_t> lookup(const std::string& name, int depth) const;
  std::optional<std::int64_t> evaluate_at(std::string_view expression, int depth) const;
  std::map<std::string, std::optional<std::string>> definitions_;  // nullopt: ambiguous
  friend class ExpressionParser;
};

}  // namespace hone::toolchain
