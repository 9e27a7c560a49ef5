// optimize/code_extraction.h: takes the kernel out of a model's reply: fenced code blocks
// (```cuda, ```cpp, ```c++, untagged, ~~~), the last complete one that defines forward (with the
// earlier blocks holding the __global__ kernels it launches), and a light check of forward's
// parameter count against the task's signature. A reply without usable code becomes a reason to
// feed back, never an exception. Pure functions, any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

struct CodeBlock {
  std::string language;  // the info string's first word, lower-case ("cuda", "cpp", "" untagged)
  std::string code;
  bool closed = true;    // false: the reply ended inside the block (cut off)
};

// Every fenced block in order (``` or ~~~, three or more, CommonMark style).
std::vector<CodeBlock> find_code_blocks(std::string_view markdown);

// What the task expects forward to take (parameter counts of both forms).
struct ExpectedSignature {
  int raw_params = -1;    // inputs + params + outputs (a trailing hone::Stream is optional)
  int torch_params = -1;  // inputs + params
  std::string raw;        // the declarations, quoted in reasons
  std::string torch;
};

struct Extraction {
  std::optional<std::string> source;  // the kernel to verify
  std::string status;                 // "" when usable; else "no_code" or "wrong_signature"
  std::string reason;                 // for the user and the next prompt
};

// target_language: "cuda" (a .cu kernel) or "cpp" (a CPU .cpp kernel: CUDA code is refused), or
// "python" (a KernelBench answer: the last complete ```python block defining class ModelNew).
// expected: when known, forward's parameter count must fit the raw or the torch form.
Extraction extract_kernel(std::string_view reply, std::string_view target_language,
                          const std::optional<ExpectedSignature>& expected = std::nullopt);

// The parameters of the first definition of `forward` in a source (top-level commas; template
// arguments kept together); nullopt when there is none.
std::optional<std::vector<std::string>> forward_parameters(std::string_view source);

}  // namespace hone
