// toolchain/task_constants.h: the task's __init__ scalars as C++ (issue 15): every int, float and
// bool that get_init_inputs() passes to Model.__init__ becomes `constexpr hone::task::<name>` in
// the translation unit of a kernel built for that task (both forms, g++ and nvcc), written before
// the user's first line so the user's lines keep their numbers.
#pragma once

#include <string>
#include <vector>

namespace hone::toolchain {

struct TaskConstant {
  std::string name;     // the __init__ parameter's name (a C++ identifier)
  std::string kind;     // "int" | "float" | "bool"
  std::string literal;  // the value as written in Python: "8", "0.1", "1e-05", "true", "inf", "nan"
};

// `namespace hone::task { constexpr std::int64_t n_head = 8; ... }` (int64_t, double, bool), or
// "" without constants. Names that are not identifiers are left out.
std::string task_constants_prelude(const std::vector<TaskConstant>& constants);

}  // namespace hone::toolchain
