// optimize/tune_knobs.h: what a kernel declares tunable, and how to rewrite it. A knob is a
// `// hone: tune NAME=v1,v2,v3` comment on the line of (or on its own line just above) one of:
//   #define NAME 128                  constexpr int NAME = 128;   (NAME must match)
//   #pragma unroll 4                  __launch_bounds__(256)      (NAME is only a label)
// The line's current value is always part of the search. Used by the built-in tuner (any thread).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

struct TuneKnob {
  enum class Kind { Define, Constexpr, PragmaUnroll, LaunchBounds };
  std::string name;
  Kind kind = Kind::Define;
  int line = 0;                     // 1-based line holding the value
  int annotation_line = 0;          // 1-based line of the `// hone: tune` comment
  std::string current;              // the value in the source now
  std::vector<std::string> values;  // the current value first, then the declared ones (deduplicated)
};

struct TuneParse {
  std::vector<TuneKnob> knobs;
  std::vector<std::string> errors;  // "line 12: ..." for annotations that cannot be used
};

TuneParse parse_tune_knobs(std::string_view source);

// The source with each named knob set to the given value (knobs not named keep theirs).
// Throws std::invalid_argument for an unknown knob name.
std::string apply_knob_values(std::string_view source, const std::vector<TuneKnob>& knobs,
                              const std::map<std::string, std::string>& values);

}  // namespace hone
