// protocol/verdict_text.h: hone's one renderer: verdicts, kernel facts and profiles in words for
// people. The headline is `hone check`'s first line, the code lens, the hover's title and every
// job's summary; the details, the hover markdown, the kernel hint labels, the profile text and the
// optimizer prompt's excerpts (mismatch, roofline) come from here too, so every front end says
// the same thing. Pure functions, any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "protocol/verdict.h"

namespace hone::protocol {

// Numbers as people read them. format_number: three significant digits ("41.2", "1.83", "1234");
// format_fixed: `digits` decimals ("12.50"); format_speedup: "1.8×", "0.91×", "120×".
std::string format_number(double value);
std::string format_fixed(double value, int digits);
std::string format_speedup(double ratio);
// "1.7×", or "1.4–2.1×" when only a range is known (a noisy timing); "" when neither.
std::string format_speedup(const std::optional<double>& point, const std::optional<SpeedupRange>& range);
// Human units: "41.2 µs", "1.35 ms", "2.10 s"; "3.2 GB", "512 KB"; "4.8 TB/s".
std::string format_us(double us);
std::string format_bytes(double bytes);
std::string format_rate(double bytes_per_s);
// The first line of a reason, cut to max_chars (for histories and progress lines).
std::string short_reason(const std::string& reason, std::size_t max_chars = 160);

// "correct", "incorrect", "compile error", "runtime error", "timeout", "rejected".
std::string status_words(Status status);

// The first failing trial's mismatch: "out0[3,17] got 0.51, expected 0.5 (trial 2, seed 7); 12
// elements out of tolerance; max abs error 0.01", or "... was never written ..." / "... NaN or
// Inf where the reference is finite" by the mismatch's kind; "" when the verdict has none.
std::string mismatch_text(const Verdict& verdict);

// One line, no newline: "✓ correct · 41.2 µs · 1.8× eager · 0.91× compile · ⚠ 1 flag" (the time
// speedups divide: "4.02 µs device" when there is a device time; a noisy pair of times gives a
// range, "1.4–2.1× eager (noisy: a range)"),
// "✗ incorrect: out[3,17] got 0.51, expected 0.5 (trial 1, seed 7)",
// "✗ compile error: k.cu:3:5: expected ';' (+1 more error)", "✗ runtime error: <reason>".
std::string verdict_headline(const Verdict& verdict);

// The lines under the headline (each ends with a newline; empty when there is nothing to add):
// the whole reason, compile errors, the expected signature, evidence, timings, the floor, flags.
std::string verdict_details(const Verdict& verdict);

// A profile job's summary: the headline, the number of suggestions, why it was not profiled.
std::string profile_headline(const Verdict& verdict, const std::string& skipped);

// "p50 41.2 µs (p10 40.9 µs, p90 42.0 µs, 812 reps, cuda_events_l2_flush)"; with a device time,
// "device time p50 ... ; call time p50 ..." (a noisy one says so).
std::string timing_text(const Timing& timing);

// A counted device time of several kernels by kernel, in launch order: "cutlass::Kernel2<cutlass_80_
// simt_sgemm_64x64_8x… 6.94 µs · ... · 2.77 µs" (each name cut before its parameters, at most 48
// characters); "" for one kernel or none.
std::string device_kernels_text(const Timing& timing);

// The expected forward declarations, indented, for a kernel whose signature does not fit.
std::string signature_text(const Signature& signature);

// Markdown for a hover on `forward`: the headline, timings against the baselines, the device,
// the flags.
std::string verdict_hover_markdown(const Verdict& verdict);

// "32 regs · 4 KiB smem · 75% occ" from a kernel's static facts; empty when it holds none.
std::string kernel_hint_label(const KernelStatic& kernel);

// Markdown for a hover on a kernel: its static facts, then the profile's derived counters and
// roofline position for that kernel when `profile` has them.
std::string kernel_hover_markdown(const KernelStatic& kernel, const ProfileReport* profile);

// "memory-bound, 62% of the roofline (DRAM 62% of peak, compute 3.1% of peak), arithmetic
// intensity 0.125 FLOP/byte".
std::string roofline_text(const RooflinePoint& point);

// "Use 16-byte loads (bytes_per_sector = 8 B < 32) — est. up to 1.5× faster".
std::string suggestion_text(const Suggestion& suggestion);

// The profile report as text for a terminal (hone profile without --json).
std::string profile_text(const ProfileReport& profile);

}  // namespace hone::protocol
