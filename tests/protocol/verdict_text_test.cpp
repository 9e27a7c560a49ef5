// tests/protocol/verdict_text_test.cpp: the one renderer: units, headlines (CLI, lens, hover
// title, job summaries), the mismatch text every front end shares, hint labels, kernel hovers
// with their profile, roofline and suggestion words.
#include <gtest/gtest.h>

#include "protocol/verdict_text.h"

namespace hone::protocol {
namespace {

using nlohmann::json;

Timing timing_of(double p50) {
  Timing t;
  t.p50_us = p50;
  t.p10_us = p50 * 0.99;
  t.p90_us = p50 * 1.01;
  t.reps = 100;
  t.method = "cuda_events_l2_flush";
  return t;
}

// A correct verdict on cuda:0 timed at `p50` µs (the tests of its times fill in the rest).
Verdict correct_on_cuda(double p50) {
  Verdict v;
  v.status = Status::Correct;
  v.device.kind = "cuda";
  v.timing = timing_of(p50);
  return v;
}

Verdict incorrect_with(std::vector<Trial> trials) {
  Verdict v;
  v.status = Status::Incorrect;
  v.reason = "out of tolerance";
  v.correctness = Correctness{};
  v.correctness->trials = std::move(trials);
  return v;
}

Trial failed(std::int64_t seed, Mismatch m) {
  Trial t;
  t.seed = seed;
  t.passed = false;
  t.mismatch = std::move(m);
  return t;
}

TEST(Format, HumanUnits) {
  EXPECT_EQ(format_us(41.23), "41.2 µs");
  EXPECT_EQ(format_us(1350), "1.35 ms");
  EXPECT_EQ(format_us(0.5), "0.500 µs");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(3.2e9), "3.20 GB");
  EXPECT_EQ(format_rate(4.8e12), "4.80 TB/s");
}

TEST(FormatNumber, ThreeSignificantDigits) {
  EXPECT_EQ(format_number(41.234), "41.2");
  EXPECT_EQ(format_number(1.8349), "1.83");
  EXPECT_EQ(format_number(1234.6), "1235");
  EXPECT_EQ(format_number(0.012345), "0.0123");
  EXPECT_EQ(format_number(3.0), "3");
  EXPECT_EQ(format_number(3.1), "3.1");
  EXPECT_EQ(format_number(99.96), "100");
}

TEST(Format, NumbersAndSpeedups) {
  EXPECT_EQ(format_number(41.234), "41.2");
  EXPECT_EQ(format_number(1.7946), "1.79");
  EXPECT_EQ(format_number(1234.4), "1234");
  EXPECT_EQ(format_number(0.125), "0.125");
  EXPECT_EQ(format_number(8e8), "800000000");
  EXPECT_EQ(format_speedup(1.8), "1.8×");
  EXPECT_EQ(format_speedup(0.91), "0.91×");
  EXPECT_EQ(format_speedup(123.4), "123×");
  EXPECT_EQ(format_fixed(12.5, 2), "12.50");
  EXPECT_EQ(short_reason("relu.cu:3: error: expected ';'\nmore"), "relu.cu:3: error: expected ';'");
}

TEST(Headline, Correct) {
  Verdict v;
  v.status = Status::Correct;
  v.timing = timing_of(41.23);
  v.speedup = Speedup{1.8, 0.91};
  EXPECT_EQ(verdict_headline(v), "✓ correct · 41.2 µs · 1.8× eager · 0.91× compile");
  v.speedup->compile.reset();
  v.flags = {{"timing_noisy", "noisy"}};
  EXPECT_EQ(verdict_headline(v), "✓ correct · 41.2 µs · 1.8× eager · ⚠ 1 flag");
}

// A correct kernel whose timing claims a busy machine left unbounded shows no time, and says why.
TEST(Headline, ATimeWithheldOnABusyMachineIsSaid) {
  Verdict v;
  v.status = Status::Correct;
  v.flags = {{"timing_withheld", "call time withheld: ... check again on a quieter machine"}};
  EXPECT_EQ(verdict_headline(v), "✓ correct · no time (machine busy) · ⚠ 1 flag");
  v.flags = {{"timing_noisy", "noisy"}};
  EXPECT_EQ(verdict_headline(v), "✓ correct · ⚠ 1 flag");
}

// Issue 14: both times shown, the speedup's basis named, a noisy pair of times a range.
TEST(Headline, DeviceTimeAndRangesWhenNoisy) {
  Verdict v = correct_on_cuda(5.5);
  v.timing->call = TimeSummary{5.5, 5.31, 5.89, 300, "cuda_events"};
  v.timing->device = TimeSummary{4.02, 3.98, 4.1, 300, "cuda_events_held_stream"};
  v.timing->settle_ms = 120;
  v.timing->kernel_counters_note = "the counters exceed the events around the held calls";
  v.baselines = Baselines{timing_of(9.31), std::nullopt, false};
  v.baselines->eager->device = TimeSummary{8.1, 8.0, 8.3, 300, "cuda_events_held_stream"};
  v.speedup = Speedup{};
  v.speedup->basis = "device";
  v.speedup->eager = 8.1 / 4.02;
  v.speedup->by_call = true;
  v.speedup->call_eager = 9.31 / 5.5;
  EXPECT_EQ(verdict_headline(v), "✓ correct · 4.02 µs device · 2.0× eager");
  const std::string details = verdict_details(v);
  EXPECT_NE(details.find("  device time: p50 4.02 µs (p10 3.98 µs, p90 4.10 µs, 300 reps, cuda_events_held_stream)\n"),
            std::string::npos) << details;
  EXPECT_NE(details.find("  call time:   p50 5.50 µs (p10 5.31 µs, p90 5.89 µs, 300 reps, cuda_events)\n"),
            std::string::npos) << details;
  EXPECT_NE(details.find("  clocks settled in 120 ms\n"), std::string::npos) << details;
  EXPECT_NE(details.find("  device time not from kernel counters: the counters exceed the events around the held calls\n"),
            std::string::npos) << details;
  EXPECT_NE(details.find("  reference eager: device 8.10 µs, call 9.31 µs\n"), std::string::npos) << details;
  Verdict counted = v;  // counted, but not as asked: the note says so, not that counters were missing
  counted.timing->device->method = "cupti_gpu_time_duration";
  counted.timing->kernel_counters_note = "the cache was flushed once per call, not before each kernel: why";
  const std::string counted_details = verdict_details(counted);
  EXPECT_NE(counted_details.find("  device time counted, but the cache was flushed once per call, not before each "
                                 "kernel: why\n"), std::string::npos) << counted_details;
  EXPECT_EQ(counted_details.find("not from kernel counters"), std::string::npos) << counted_details;
  EXPECT_NE(details.find("  speedup (device time): 2.0× eager\n"), std::string::npos) << details;
  EXPECT_NE(details.find("  speedup (call time): 1.7× eager\n"), std::string::npos) << details;
  EXPECT_EQ(details.find("range"), std::string::npos) << details;
  const std::string md = verdict_hover_markdown(v);
  EXPECT_NE(md.find("| kernel device | 3.98 | 4.02 | 4.1 | 300 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| eager call | 9.22 | 9.31 | 9.4 | 100 |"), std::string::npos) << md;
  EXPECT_NE(md.find("speedups by device time"), std::string::npos) << md;

  v.speedup->eager.reset();
  v.speedup->eager_range = SpeedupRange{1.4, 2.1};
  v.baselines->eager->device = TimeSummary{8.1, 6.0, 12.0, 300, "cuda_events_held_stream"};
  EXPECT_EQ(verdict_headline(v), "✓ correct · 4.02 µs device · 1.4–2.1× eager (noisy: a range)");
  const std::string noisy = verdict_details(v);
  EXPECT_NE(noisy.find("  speedup (device time): 1.4–2.1× eager\n"), std::string::npos) << noisy;
  EXPECT_NE(noisy.find("is a range: a timing was noisy"), std::string::npos) << noisy;
  EXPECT_NE(noisy.find("reference eager: device 8.10 µs, call 9.31 µs (noisy: p10 6.00 µs, p90 12.0 µs)"),
            std::string::npos) << noisy;
  EXPECT_NE(verdict_hover_markdown(v).find("Speedup shown as a range"), std::string::npos);

  json j = v;
  EXPECT_EQ(j["speedup"]["eager"], nullptr);
  EXPECT_DOUBLE_EQ(j["speedup"]["eager_range"]["low"].get<double>(), 1.4);
  EXPECT_EQ(j["speedup"]["basis"], "device");
  EXPECT_TRUE(j["speedup"]["call"].is_object());
  EXPECT_EQ(j["timing"]["device"]["method"], "cuda_events_held_stream");
  Verdict back = j.get<Verdict>();
  ASSERT_TRUE(back.timing && back.timing->device && back.speedup && back.speedup->eager_range);
  EXPECT_DOUBLE_EQ(back.timing->device->p50_us, 4.02);
  EXPECT_DOUBLE_EQ(back.speedup->eager_range->high, 2.1);
  EXPECT_DOUBLE_EQ(back.speedup->call_eager.value_or(0), 9.31 / 5.5);
  EXPECT_DOUBLE_EQ(back.timing->settle_ms.value_or(0), 120);

  EXPECT_EQ(back.timing->kernel_counters_note.value_or(""), *v.timing->kernel_counters_note)
      << "the note travels from the worker's timing to the verdict and the baseline cache";
}

// A counted device time of several kernels is shown by kernel (launch order, names cut to their
// function) and travels through JSON; one kernel adds no line.
TEST(Details, CountedDeviceTimeByKernel) {
  Verdict v = correct_on_cuda(14.0);
  v.timing->call = TimeSummary{36.5, 35.0, 38.0, 300, "cuda_events"};
  v.timing->device = TimeSummary{13.3, 13.2, 13.5, 12, "cupti_gpu_time_duration"};
  v.timing->device_kernels = {{"void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(T1::Params)", 7.1},
                              {"void cublasLt::splitKreduce_kernel<32, 16, int, float>(cublasLt::cublasSplitKParams<float>)", 3.6},
                              {"", 2.6}};
  const std::string details = verdict_details(v);
  EXPECT_NE(details.find("  by kernel:   cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x… 7.10 µs · "
                         "cublasLt::splitKreduce_kernel<32, 16, int, floa… 3.60 µs · ? 2.60 µs\n"),
            std::string::npos) << details;
  json j = v;
  EXPECT_EQ(j["timing"]["device_kernels"][1]["p50_us"].get<double>(), 3.6);
  Verdict back = j.get<Verdict>();
  ASSERT_TRUE(back.timing);
  ASSERT_EQ(back.timing->device_kernels.size(), 3u);
  EXPECT_EQ(back.timing->device_kernels[0].name, v.timing->device_kernels[0].name);
  v.timing->device_kernels.resize(1);
  EXPECT_EQ(verdict_details(v).find("by kernel"), std::string::npos);
  v.timing->device_kernels.clear();
  EXPECT_FALSE(json(v)["timing"].contains("device_kernels"));
}

// The median's 95% interval (from the worker's order statistics) says how precisely p50 is known,
// beside the per-call spread; it travels through JSON.
TEST(Headline, TheMediansIntervalIsShownAndTravels) {
  Verdict v = correct_on_cuda(5.5);
  v.timing->call = TimeSummary{5.5, 5.31, 5.89, 300, "cuda_events"};
  v.timing->device = TimeSummary{4.5, 4.3, 4.7, 300, "cupti_kernel_records", 4.48, 4.52};
  const std::string details = verdict_details(v);
  EXPECT_NE(details.find("  device time: p50 4.50 µs (p10 4.30 µs, p90 4.70 µs, 300 reps, cupti_kernel_records; p50 "
                         "known to ±0.44% (95%))\n"),
            std::string::npos)
      << details;
  EXPECT_NE(details.find("  call time:   p50 5.50 µs (p10 5.31 µs, p90 5.89 µs, 300 reps, cuda_events)\n"),
            std::string::npos)
      << "no interval sent, none shown: " << details;
  json j = v;
  EXPECT_DOUBLE_EQ(j["timing"]["device"]["p50_low_us"].get<double>(), 4.48);
  Verdict back = j.get<Verdict>();
  ASSERT_TRUE(back.timing && back.timing->device && back.timing->device->p50_interval());
  EXPECT_NEAR(*back.timing->device->p50_interval(), 0.04 / 4.5, 1e-12);
  EXPECT_FALSE(back.timing->call->p50_interval());
  EXPECT_FALSE(j["timing"]["device"].contains("samples_us")) << "no samples sent, none written";
  v.timing->device->samples_us = {4.6, 4.4, 4.5};  // HONE_TIMING_SAMPLES: in call order, kept so
  back = json(v).get<Verdict>();
  EXPECT_EQ(back.timing->device->samples_us, (std::vector<double>{4.6, 4.4, 4.5}));
}

// Counted device time whose samples each average consecutive calls says so, and the calls one
// by one travel beside it.
TEST(Headline, DeviceSamplesOfSeveralCallsSaySoAndTheCallsTravelBeside) {
  Verdict v = correct_on_cuda(12.0);
  v.timing->device = TimeSummary{11.3, 11.2, 11.5, 24, "cupti_gpu_time_duration"};
  v.timing->device->calls_per_sample = 6;
  v.timing->device_per_call = TimeSummary{11.3, 10.9, 11.8, 144, "cupti_gpu_time_duration"};
  const std::string details = verdict_details(v);
  EXPECT_NE(details.find("device time: p50 11.3 µs (p10 11.2 µs, p90 11.5 µs, 24 samples of 6 calls, "
                         "cupti_gpu_time_duration)"),
            std::string::npos)
      << details;
  json j = v;
  EXPECT_EQ(j["timing"]["device"]["calls_per_sample"].get<int>(), 6);
  Verdict back = j.get<Verdict>();
  ASSERT_TRUE(back.timing && back.timing->device_per_call);
  EXPECT_EQ(back.timing->device->calls_per_sample, 6);
  EXPECT_EQ(back.timing->device_per_call->reps, 144);
  EXPECT_FALSE(back.timing->device_per_call->calls_per_sample);
  EXPECT_FALSE(json(back)["timing"]["device_per_call"].contains("calls_per_sample"));
}

TEST(Headline, Failures) {
  Trial passed;
  passed.seed = 1;
  passed.passed = true;
  Verdict mismatch = incorrect_with({passed, failed(2, Mismatch{0, {3, 17}, 0.51, 0.5, std::nullopt})});
  EXPECT_EQ(verdict_headline(mismatch), "✗ incorrect: out[3,17] got 0.51, expected 0.5 (trial 2, seed 2)");
  Verdict nan_out = incorrect_with({failed(1, Mismatch{1, {0}, "nan", 2.0, std::nullopt})});
  EXPECT_EQ(verdict_headline(nan_out), "✗ incorrect: out1[0] got nan, expected 2 (trial 1, seed 1)");

  Verdict compile;
  compile.status = Status::CompileError;
  compile.reason = "x";
  compile.compile.diagnostics = {{"k.cu", 1, 1, Severity::Error, "a", DiagnosticSource::Nvcc},
                                 {"k.cu", 2, 1, Severity::Warning, "b", DiagnosticSource::Nvcc},
                                 {"k.cu", 3, 1, Severity::Error, "c", DiagnosticSource::Nvcc}};
  EXPECT_EQ(verdict_headline(compile), "✗ compile error: x (+1 more error)");
  Verdict crash;
  crash.status = Status::RuntimeError;
  crash.reason = "SIGSEGV in forward\nthe stack";
  EXPECT_EQ(verdict_headline(crash), "✗ runtime error: SIGSEGV in forward");
  EXPECT_NE(verdict_details(crash).find("SIGSEGV in forward\nthe stack"), std::string::npos) << verdict_details(crash);
}

TEST(Mismatch, NamesTheOutputAndSaysHowFarOff) {
  Trial t = failed(7, Mismatch{0, {3, 17}, 0.51, 0.5, 12});
  t.max_abs_error = 0.01;
  Verdict v = incorrect_with({t});
  EXPECT_EQ(mismatch_text(v), "out[3,17] got 0.51, expected 0.5 (trial 1, seed 7); 12 elements out of tolerance; max abs error 0.01");
  v.signature = Signature{};
  v.signature->outputs = {{"y", "tensor", "float32", {4, 4}}};
  EXPECT_EQ(mismatch_text(v).rfind("y[3,17] got", 0), 0u) << mismatch_text(v);
  EXPECT_EQ(mismatch_text(incorrect_with({})), "");
}

TEST(Mismatch, NeverWrittenAndNonFiniteElementsAreNamedSo) {
  Mismatch unwritten{0, {0, 0}, "nan", "nan", 131090, "unwritten"};
  Trial t = failed(9, unwritten);
  t.max_abs_error = 4.77e-07;
  EXPECT_EQ(mismatch_text(incorrect_with({t})), "out[0,0] was never written (trial 1, seed 9); 131090 elements never written");
  Trial nan = failed(9, Mismatch{0, {0, 1}, "nan", -0.0589, 131062, "nonfinite"});
  nan.max_abs_error = 0.0;
  EXPECT_EQ(mismatch_text(incorrect_with({nan})),
            "out[0,1] got nan, expected -0.0589 (trial 1, seed 9); 131062 elements NaN or Inf where the reference is finite");
}

TEST(Profile, HeadlineCountsSuggestionsAndSaysWhyNotProfiled) {
  Verdict v;
  v.status = Status::Correct;
  v.timing = timing_of(10);
  v.profile = ProfileReport{};
  v.profile->suggestions.resize(2);
  EXPECT_EQ(profile_headline(v, ""), "✓ correct · 10.0 µs · 2 suggestions");
  v.profile.reset();
  v.status = Status::RuntimeError;
  v.reason = "crashed";
  EXPECT_EQ(profile_headline(v, "not profiled: the check ended with crashed"),
            "✗ runtime error: crashed · not profiled: the check ended with crashed");
}

TEST(Hover, VerdictTableAndFlags) {
  Verdict v;
  v.status = Status::Correct;
  v.timing = timing_of(41.2);
  v.baselines = Baselines{timing_of(74), std::nullopt, false};
  v.device.name = "NVIDIA H200";
  v.flags = {{"weak_task", "the task is weak"}};
  std::string md = verdict_hover_markdown(v);
  EXPECT_EQ(md.rfind("**✓ correct · 41.2 µs · ⚠ 1 flag**\n\n", 0), 0u) << md;
  EXPECT_NE(md.find("| kernel | 40.8 | 41.2 | 41.6 | 100 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| eager | 73.3 | 74 | 74.7 | 100 |"), std::string::npos) << md;
  EXPECT_NE(md.find("device: NVIDIA H200 · cuda_events_l2_flush"), std::string::npos) << md;
  EXPECT_NE(md.find("- ⚠ the task is weak"), std::string::npos) << md;
}

KernelStatic relu_static() {
  KernelStatic k;
  k.name = "relu_kernel(const float*, float*, int)";
  k.mangled = "_Z";
  k.registers = 32;
  k.static_shared_bytes = 4096;
  k.occupancy = Occupancy{256, BlockSizeSource::LaunchSite, 6, 48, 64, 75.0, OccupancyLimit::Registers};
  return k;
}

TEST(KernelFacts, HintLabelAndHoverWithTheProfile) {
  KernelStatic k = relu_static();
  EXPECT_EQ(kernel_hint_label(k), "32 regs · 4 KiB smem · 75% occ");
  KernelStatic bare;
  bare.name = "k";
  EXPECT_EQ(kernel_hint_label(bare), "");

  ProfiledKernel pk;
  pk.record.name = "relu_kernel(const float*, float*, int)";
  pk.record.own = true;
  pk.record.duration_us = 41.2;
  pk.record.grid = {64, 1, 1};
  pk.record.block = {256, 1, 1};
  pk.metrics = {{"dram__bytes_read.sum", 4.0e8}, {"dram__bytes_write.sum", 4.0e8}};
  pk.derived.dram_read_bytes = 4.0e8;
  pk.derived.dram_write_bytes = 4.0e8;
  pk.derived.achieved_occupancy_pct = 71.5;
  RooflinePoint p;
  p.bound = Bound::memory;
  p.pct_of_roofline = 81.5;
  p.memory_pct = 81.5;
  p.compute_pct = 3.0;
  p.arithmetic_intensity = 0.25;
  pk.roofline = p;
  ProfileReport profile;
  profile.candidate.kernels = {pk};
  profile.candidate.counters.available = true;
  std::string md = kernel_hover_markdown(k, &profile);
  EXPECT_NE(md.find("limited by registers"), std::string::npos) << md;
  EXPECT_NE(md.find("**Profile**: 41.2 µs, grid [64,1,1] × block [256,1,1]"), std::string::npos) << md;
  EXPECT_NE(md.find("| dram_bytes | 800000000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| achieved_occupancy_pct | 71.5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("memory-bound, 81.5% of the roofline (DRAM 81.5% of peak, compute 3% of peak), arithmetic intensity 0.25 FLOP/byte"),
            std::string::npos)
      << md;
  ProfileReport no_counters;
  no_counters.candidate.counters.message = "insufficient privileges";
  EXPECT_NE(kernel_hover_markdown(k, &no_counters).find("counters unavailable: insufficient privileges"), std::string::npos);
  EXPECT_EQ(kernel_hover_markdown(k, nullptr).find("**Profile**"), std::string::npos);
}

TEST(Suggestions, EvidenceAndGainInOneLine) {
  Suggestion s;
  s.id = "narrow_loads";
  s.title = "Use 16-byte loads";
  s.evidence = {{"bytes_per_sector", 8, "<", 32, "B"}};
  s.gain = EstimatedGain{1.5, "b"};
  EXPECT_EQ(suggestion_text(s), "Use 16-byte loads (bytes_per_sector = 8 B < 32) — est. up to 1.5× faster");
  Suggestion plain;
  plain.title = "Grid too small";
  EXPECT_EQ(suggestion_text(plain), "Grid too small");
}

}  // namespace
}  // namespace hone::protocol
