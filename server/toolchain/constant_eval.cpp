// toolchain/constant_eval.cpp: collecting integer constant definitions and evaluating expressions.
#include "toolchain/constant_eval.h"

#include <cctype>
#include <regex>
#include <vector>

#include "toolchain/source_text.h"

namespace hone::toolchain {

namespace {

constexpr int kMaxDepth = 16;

}  // namespace

// Recursive-descent evaluation; identifiers are looked up in the table (depth-limited).
class ExpressionParser {
 public:
  ExpressionParser(const ConstantTable& table, std::string_view text, int depth)
      : table_(table), s_(text), depth_(depth) {}

  std::optional<std::int64_t> parse() {
    auto v = additive();
    skip_space();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view op) {
    skip_space();
    if (s_.substr(pos_, op.size()) != op) return false;
    // "<" must not eat "<<", and so on.
    if (op.size() == 1 && pos_ + 1 < s_.size() && (op == "<" || op == ">") && s_[pos_ + 1] == op[0]) return false;
    pos_ += op.size();
    return true;
  }

  std::optional<std::int64_t> additive() {
    auto v = shift();
    while (v) {
      if (eat("+")) {
        auto r = shift();
        if (!r) return std::nullopt;
        *v += *r;
      } else if (eat("-")) {
        auto r = shift();
        if (!r) return std::nullopt;
        *v -= *r;
      } else {
        break;
      }
    }
    return v;
  }

  // Shifts bind looser than + in C++, but block sizes are written as (1 << 8) or 32 * 8.
  std::optional<std::int64_t> shift() {
    auto v = multiplicative();
    while (v) {
      if (eat("<<")) {
        auto r = multiplicative();
        if (!r || *r < 0 || *r > 62) return std::nullopt;
        *v <<= *r;
      } else if (eat(">>")) {
        auto r = multiplicative();
        if (!r || *r < 0 || *r > 62) return std::nullopt;
        *v >>= *r;
      } else {
        break;
      }
    }
    return v;
  }

  std::optional<std::int64_t> multiplicative() {
    auto v = unary();
    while (v) {
      if (eat("*")) {
        auto r = unary();
        if (!r) return std::nullopt;
        *v *= *r;
      } else if (eat("/")) {
        auto r = unary();
        if (!r || *r == 0) return std::nullopt;
        *v /= *r;
      } else if (eat("%")) {
        auto r = unary();
        if (!r || *r == 0) return std::nullopt;
        *v %= *r;
      } else {
        break;
      }
    }
    return v;
  }

  std::optional<std::int64_t> unary() {
    if (eat("-")) {
      auto v = unary();
      return v ? std::optional<std::int64_t>(-*v) : std::nullopt;
    }
    if (eat("+")) return unary();
    return primary();
  }

  std::optional<std::int64_t> product_of_list() {
    // pos_ is just after an opening ( or {; reads a comma list up to the closing bracket.
    std::size_t start = pos_ - 1;
    std::size_t close = matching_bracket(s_, start);
    if (close == std::string_view::npos) return std::nullopt;
    std::int64_t product = 1;
    for (const auto& part : split_top_level(s_.substr(start + 1, close - start - 1))) {
      auto v = table_.evaluate_at(part, depth_ + 1);
      if (!v) return std::nullopt;
      product *= *v;
    }
    pos_ = close + 1;
    return product;
  }

  std::optional<std::int64_t> primary() {
    skip_space();
    if (pos_ >= s_.size()) return std::nullopt;
    char c = s_[pos_];
    if (c == '(') {
      // A cast to an integer type: (int), (unsigned), (size_t) ...
      static const std::regex cast(R"(^\(\s*(?:const\s+)?(?:unsigned|signed|int|long|short|size_t|unsigned\s+int|long\s+long|int64_t|int32_t|uint32_t|uint64_t)\s*\))");
      std::cmatch m;
      if (std::regex_search(s_.data() + pos_, s_.data() + s_.size(), m, cast)) {
        pos_ += static_cast<std::size_t>(m.length(0));
        return unary();
      }
      ++pos_;
      auto v = additive();
      if (!v || !eat(")")) return std::nullopt;
      return v;
    }
    if (c == '{') {
      ++pos_;
      return product_of_list();
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (is_ident_char(s_[pos_]) || s_[pos_] == '\'')) ++pos_;
      std::string digits;
      for (char d : s_.substr(start, pos_ - start))
        if (d != '\'') digits += d;
      while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L'))
        digits.pop_back();
      try {
        std::size_t used = 0;
        std::int64_t v = std::stoll(digits, &used, 0);
        if (used != digits.size()) return std::nullopt;
        return v;
      } catch (...) {
        return std::nullopt;
      }
    }
    if (is_ident_char(c)) {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (is_ident_char(s_[pos_]) || (s_[pos_] == ':' && pos_ + 1 < s_.size() && s_[pos_ + 1] == ':'))) {
        pos_ += s_[pos_] == ':' ? 2 : 1;
      }
      std::string name(s_.substr(start, pos_ - start));
      if (name == "dim3" || name == "static_cast") {
        skip_space();
        if (name == "static_cast") {
          if (pos_ >= s_.size() || s_[pos_] != '<') return std::nullopt;
          std::size_t close = matching_bracket(s_, pos_);
          if (close == std::string_view::npos) return std::nullopt;
          pos_ = close + 1;
          if (!eat("(")) return std::nullopt;
          auto v = additive();
          if (!v || !eat(")")) return std::nullopt;
          return v;
        }
        if (eat("(")) return product_of_list();
        if (eat("{")) return product_of_list();
        return std::nullopt;
      }
      // Qualified names (detail::kBlock) are looked up by their last component.
      if (auto colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
      return table_.lookup(name, depth_ + 1);
    }
    return std::nullopt;
  }

  const ConstantTable& table_;
  std::string_view s_;
  int depth_;
  std::size_t pos_ = 0;
};

void ConstantTable::define(const std::string& name, std::string_view expression) {
  std::string expr(trim(expression));
  auto [it, inserted] = definitions_.emplace(name, expr);
  if (!inserted && it->second && *it->second != expr) it->second = std::nullopt;
}

void ConstantTable::scan(std::string_view code) {
  static const std::regex define_re(R"((?:^|\n)[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+))");
  static const std::regex assign_re(
      R"((?:^|[;{}\n])\s*(?:static\s+|inline\s+|constexpr\s+|const\s+|__device__\s+|__constant__\s+)*(?:unsigned\s+|signed\s+)?(?:int|long|long\s+long|short|size_t|int64_t|int32_t|uint32_t|uint64_t|auto|unsigned)\s+(?:const\s+)?([A-Za-z_]\w*)\s*(?:=\s*([^;{}]+)|\{([^;{}]*)\})\s*;)");
  static const std::regex dim3_re(R"(\bdim3\s+([A-Za-z_]\w*)\s*(?:\(([^;]*)\)|\{([^;]*)\}|=\s*([^;]+))\s*;)");
  for (std::cregex_iterator it(code.data(), code.data() + code.size(), define_re), end; it != end; ++it)
    define((*it)[1].str(), (*it)[2].str());
  for (std::cregex_iterator it(code.data(), code.data() + code.size(), assign_re), end; it != end; ++it)
    define((*it)[1].str(), (*it)[2].matched ? (*it)[2].str() : (*it)[3].str());
  for (std::cregex_iterator it(code.data(), code.data() + code.size(), dim3_re), end; it != end; ++it) {
    if ((*it)[2].matched) define((*it)[1].str(), "dim3(" + (*it)[2].str() + ")");
    if ((*it)[3].matched) define((*it)[1].str(), "dim3(" + (*it)[3].str() + ")");
    if ((*it)[4].matched) define((*it)[1].str(), (*it)[4].str());
  }
}

std::optional<std::int64_t> ConstantTable::lookup(const std::string& name, int depth) const {
  auto it = definitions_.find(name);
  if (it == definitions_.end() || !it->second) return std::nullopt;
  return evaluate_at(*it->second, depth);
}

std::optional<std::int64_t> ConstantTable::evaluate_at(std::string_view expression, int depth) const {
  if (depth > kMaxDepth) return std::nullopt;
  return ExpressionParser(*this, trim(expression), depth).parse();
}

std::optional<std::int64_t> ConstantTable::evaluate(std::string_view expression) const {
  return evaluate_at(expression, 0);
}

}  // namespace hone::toolchain
