// engine/check_summary.h: a verdict in words, for people: one headline ("✓ correct · 41.2 µs ·
// 1.8× eager · 0.9× compile", "✗ incorrect: out0[3,17] got 0.51, expected 0.5 (trial 2, seed 7)")
// and the details under it (evidence, flags, timing spread, floor, the expected signature).
// Used by `hone check` and the language server's lenses and hovers; pure functions, any thread.
#pragma once

#include <string>

#include "protocol/verdict.h"

namespace hone {

// One line, no trailing newline.
std::string verdict_headline(const protocol::Verdict& verdict);

// Lines under the headline (each ends with a newline; empty when there is nothing to add).
std::string verdict_details(const protocol::Verdict& verdict);

// The first failing trial's mismatch as "out0[3,17] got 0.51, expected 0.5 (trial 2, seed 7);
// 12 elements out of tolerance", or "" when the verdict has none.
std::string mismatch_text(const protocol::Verdict& verdict);

// "p50 41.2 µs (p10 40.9 µs, p90 42.0 µs, 812 reps, cuda_events_l2_flush)".
std::string timing_text(const protocol::Timing& timing);

// The expected forward declarations, indented, for a kernel whose signature does not fit.
std::string signature_text(const protocol::Signature& signature);

}  // namespace hone
