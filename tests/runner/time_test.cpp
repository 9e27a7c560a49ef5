// tests/runner/time_test.cpp: the time op on the CPU through the real hone-runner: settling,
// warm-up, one host-clock time per scheduled call, each call's input set and mixed rows copied
// into the targets (in several layouts) or each call's mix of every set (contiguous targets), every
// output slot written with what that call saw, the sets left alone, and the op's checks.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <vector>

#include "harness.h"
#include "runner_fixture.h"

namespace hone::runner_test {
namespace {

struct Layout {
  std::vector<std::int64_t> shape, strides;
  std::int64_t numel() const { return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>()); }
  std::int64_t extent() const {
    std::int64_t last = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) last += (shape[d] - 1) * strides[d];
    return last + 1;
  }
  // The memory offset of the logical (row-major) element i.
  std::int64_t offset(std::int64_t i) const {
    std::int64_t off = 0;
    for (std::size_t d = shape.size(); d-- > 0;) {
      off += (i % shape[d]) * strides[d];
      i /= shape[d];
    }
    return off;
  }
  std::int64_t row_of(std::int64_t i) const { return i / (numel() / shape[0]); }
};

constexpr int kSets = 3;
constexpr int kCalls = 12;
constexpr std::int64_t kBusyUs = 300;

class TimeTest : public RunnerTest, public ::testing::WithParamInterface<Layout> {
 protected:
  // Arena 1: targets, kSets sets, kCalls output slots (row-major), each region_ floats.
  void SetUp() override {
    start();
    const Layout& l = GetParam();
    region_ = static_cast<std::size_t>(std::max(l.extent(), l.numel()));
    arena_ = std::make_unique<MemfdArena>((1 + kSets + kCalls) * region_ * sizeof(float));
    poison(arena_->at<float>(), arena_->bytes() / sizeof(float));
    for (int k = 0; k < kSets; ++k)
      for (std::int64_t i = 0; i < l.numel(); ++i) set_data(k)[l.offset(i)] = value(k, i);
    ASSERT_EQ(kind_of(map_host(1, *arena_)), "ok");
  }
  static float value(int set, std::int64_t i) { return static_cast<float>(1000 * (set + 1) + i); }
  float* set_data(int k) const { return arena_->at<float>((1 + k) * region_ * sizeof(float)); }
  float* slot_data(int j) const { return arena_->at<float>((1 + kSets + j) * region_ * sizeof(float)); }
  json input(std::size_t region) const {
    return tensor_arg(buf(1, region * region_ * sizeof(float), GetParam().shape, GetParam().strides));
  }
  json args(std::size_t region) const { return json::array({input(region), float_arg(1), int_arg(kBusyUs)}); }
  json request(int warmup, double settle_ms) const {
    json sets = json::array(), outputs = json::array(), schedule = json::array();
    for (int k = 0; k < kSets; ++k) sets.push_back(args(1 + k));
    for (int j = 0; j < kCalls; ++j)
      outputs.push_back(json::array({buf(1, (1 + kSets + j) * region_ * sizeof(float), GetParam().shape)}));
    for (int i = 0; i < kCalls; ++i) {
      json rows = json::array();
      if (i % 2 == 1) {
        rows.push_back({0, (i * 5) % GetParam().shape[0], (i + 1) % kSets});
        rows.push_back({0, (i * 3 + 1) % GetParam().shape[0], (i + 2) % kSets});
      }
      schedule.push_back({{"set", i % kSets}, {"slot", i}, {"rows", rows}});
    }
    return {{"mode", "call"}, {"args", args(0)}, {"sets", sets}, {"outputs", outputs}, {"schedule", schedule},
            {"warmup", warmup}, {"settle_ms", settle_ms}, {"flush_bytes", 1 << 20}, {"release", nullptr}};
  }
  // What timed call i saw: its set, with its mixed rows from their donor sets (the later wins).
  float expected(int i, std::int64_t element) const {
    const Layout& l = GetParam();
    const std::int64_t row = l.row_of(element);
    int from = i % kSets;
    if (i % 2 == 1) {
      if (row == (i * 5) % l.shape[0]) from = (i + 1) % kSets;
      if (row == (i * 3 + 1) % l.shape[0]) from = (i + 2) % kSets;
    }
    return value(from, element);
  }

  std::size_t region_ = 0;
  std::unique_ptr<MemfdArena> arena_;
};

TEST_P(TimeTest, EachTimedCallSeesItsSetAndRowsAndWritesItsSlot) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  const auto* sets = reinterpret_cast<const unsigned char*>(set_data(0));
  const std::vector<unsigned char> sets_before(sets, sets + kSets * region_ * sizeof(float));  // bytes: the gaps hold NaN
  const json r = runner().request("time", request(3, 30));
  ASSERT_EQ(kind_of(r), "ok") << r.dump();
  EXPECT_EQ(r["method"], "host_clock");
  ASSERT_EQ(r["times_us"].size(), static_cast<std::size_t>(kCalls));
  ASSERT_EQ(r["warmup_us"].size(), 3u);
  for (const auto& t : r["times_us"]) {
    EXPECT_GE(t.get<double>(), kBusyUs);
    EXPECT_LT(t.get<double>(), kBusyUs + 100000.0);
  }
  for (const auto& t : r["warmup_us"]) EXPECT_GE(t.get<double>(), kBusyUs);
  EXPECT_GT(r["settle_ms"].get<double>(), 0.0);
  EXPECT_LT(r["settle_ms"].get<double>(), 1000.0);
  EXPECT_GE(r["enqueue_s"].get<double>(), kCalls * kBusyUs * 1e-6);
  EXPECT_FALSE(r["spin_timed_out"].get<bool>());
  for (int i = 0; i < kCalls; ++i)
    for (std::int64_t e = 0; e < GetParam().numel(); ++e)
      ASSERT_EQ(slot_data(i)[e], expected(i, e)) << "slot " << i << " element " << e;
  EXPECT_EQ(std::vector<unsigned char>(sets, sets + sets_before.size()), sets_before);
}

// "mix": a contiguous target made from every set, element by element, by the hash of the call's
// seed (hone_harness_mix_choice); a target of another layout is refused (the judge varies its rows).
TEST_P(TimeTest, EachTimedCallSeesItsMixOfEverySetWhenTheTargetIsContiguous) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  const Layout& l = GetParam();
  std::int64_t expected_stride = 1;
  bool contiguous = true;
  for (std::size_t d = l.shape.size(); d-- > 0;) {
    if (l.shape[d] != 1 && l.strides[d] != expected_stride) contiguous = false;
    expected_stride *= l.shape[d];
  }
  json req = request(0, 0);
  for (int i = 0; i < kCalls; ++i) req["schedule"][i]["mix"] = {{"seed", 7000u + 13u * i}, {"args", json::array({0})}};
  const json r = runner().request("time", req);
  if (!contiguous) {
    EXPECT_EQ(kind_of(r), "bad_request") << r.dump();
    return;
  }
  ASSERT_EQ(kind_of(r), "ok") << r.dump();
  std::size_t from_other_sets = 0;
  for (int i = 0; i < kCalls; ++i)
    for (std::int64_t e = 0; e < l.numel(); ++e) {
      const int k = static_cast<int>(hone_harness_mix_choice(7000u + 13u * i, static_cast<unsigned long long>(e)) % kSets);
      ASSERT_EQ(slot_data(i)[e], value(k, e)) << "slot " << i << " element " << e;
      from_other_sets += k != i % kSets;
    }
  EXPECT_GT(from_other_sets, static_cast<std::size_t>(kCalls * l.numel() / 2));  // not the call's own set
}

INSTANTIATE_TEST_SUITE_P(Layouts, TimeTest,
                         ::testing::Values(Layout{{8, 16}, {16, 1}},           // row-major
                                           Layout{{8, 16}, {1, 8}},            // transposed
                                           Layout{{4, 6, 5}, {5, 20, 1}},      // dims 0 and 1 swapped
                                           Layout{{4, 6, 5}, {1, 4, 24}},      // reversed
                                           Layout{{6, 4}, {8, 1}},             // padded rows
                                           Layout{{5, 1, 3}, {3, 0, 1}}),      // a broadcast dimension
                         [](const auto& info) { return "layout" + std::to_string(info.index); });

class TimeChecks : public RunnerTest {
 protected:
  void SetUp() override {
    start();
    ASSERT_EQ(kind_of(map_host(1, arena_)), "ok");
  }
  json x(std::size_t offset = 0) const { return tensor_arg(buf(1, offset, {4, 4})); }
  json base(json schedule) const {
    return {{"mode", "call"}, {"args", json::array({x(), float_arg(1), int_arg(0)})},
            {"sets", json::array({json::array({x(256), float_arg(1), int_arg(0)})})},
            {"outputs", json::array({json::array({buf(1, 512, {4, 4})})})}, {"schedule", std::move(schedule)}};
  }
  MemfdArena arena_{4096};
};

TEST_F(TimeChecks, TheNullFormTimesTheLoopItself) {
  json req = base(json::array({json{{"set", 0}, {"slot", 0}}, json{{"set", 0}, {"slot", 0}}}));
  req["args"] = json::array();
  req["sets"] = json::array();
  req["outputs"] = json::array();
  const json r = runner().request("time", req);
  ASSERT_EQ(kind_of(r), "ok") << r.dump();
  ASSERT_EQ(r["times_us"].size(), 2u);
  for (const auto& t : r["times_us"]) EXPECT_LT(t.get<double>(), 1000.0);
  EXPECT_EQ(r["settle_ms"], 0.0);
}

TEST_F(TimeChecks, BadSchedulesAreBadRequests) {
  ASSERT_EQ(kind_of(load("scale")), "ok");
  EXPECT_EQ(kind_of(runner().request("time", base(json::array({json{{"set", 0}, {"slot", 1}}})))), "bad_request");
  EXPECT_EQ(kind_of(runner().request("time", base(json::array({json{{"set", 2}, {"slot", 0}}})))), "bad_request");
  json rows_on_scalar = base(json::array({json{{"set", 0}, {"slot", 0}, {"rows", json::array({json::array({1, 0, 0})})}}}));
  EXPECT_EQ(kind_of(runner().request("time", rows_on_scalar)), "bad_request");
  json row_too_far = base(json::array({json{{"set", 0}, {"slot", 0}, {"rows", json::array({json::array({0, 4, 0})})}}}));
  EXPECT_EQ(kind_of(runner().request("time", row_too_far)), "bad_request");
  json other_shape = base(json::array({json{{"set", 0}, {"slot", 0}}}));
  other_shape["sets"][0][0] = tensor_arg(buf(1, 256, {2, 8}));
  EXPECT_EQ(kind_of(runner().request("time", other_shape)), "bad_request");
  json device = base(json::array({json{{"set", 0}, {"slot", 0}}}));
  device["mode"] = "device";
  EXPECT_EQ(kind_of(runner().request("time", device)), "unsupported");
  json counted = base(json::array({json{{"set", 0}, {"slot", 0}}}));
  counted["kernel_counters"] = 64;
  EXPECT_EQ(kind_of(runner().request("time", counted)), "unsupported");  // hardware counters need CUDA
  counted["kernel_counters"] = -1;
  EXPECT_EQ(kind_of(runner().request("time", counted)), "bad_request");
  json each_kernel = base(json::array({json{{"set", 0}, {"slot", 0}}}));
  each_kernel["flush_each_kernel"] = true;  // a flush before each counted kernel: no counters asked
  EXPECT_EQ(kind_of(runner().request("time", each_kernel)), "bad_request");
  each_kernel["flush_each_kernel"] = "yes";
  EXPECT_EQ(kind_of(runner().request("time", each_kernel)), "bad_request");
  EXPECT_EQ(kind_of(runner().request("prepare_counters", {{"kernel_counters", 1024}})), "unsupported");  // CUDA only
  EXPECT_EQ(kind_of(runner().request("prepare_counters", {{"kernel_counters", 0}})), "bad_request");
  EXPECT_EQ(kind_of(runner().request("prepare_counters", json::object())), "bad_request");
  json mix_scalar = base(json::array({json{{"set", 0}, {"slot", 0}, {"mix", {{"seed", 1}, {"args", json::array({1})}}}}}));
  EXPECT_EQ(kind_of(runner().request("time", mix_scalar)), "bad_request");
  json mix_seed = base(json::array({json{{"set", 0}, {"slot", 0}, {"mix", {{"seed", -1}, {"args", json::array({0})}}}}}));
  EXPECT_EQ(kind_of(runner().request("time", mix_seed)), "bad_request");
  json ok = base(json::array({json{{"set", 0}, {"slot", 0}, {"rows", json::array({json::array({0, 3, 0})})}}}));
  EXPECT_EQ(kind_of(runner().request("time", ok)), "ok");
  json mixed = base(json::array({json{{"set", 0}, {"slot", 0}, {"mix", {{"seed", 5}, {"args", json::array({0})}}}}}));
  EXPECT_EQ(kind_of(runner().request("time", mixed)), "ok");
}

// On the CPU a call's inputs are written after its flush, not before: a kernel's own thread that
// watches the targets (input_age.cpp) sees each call's input for microseconds before forward, not
// for the flush's milliseconds, in which it could have computed the output beside the loop.
class TimeOrder : public RunnerTest {};

TEST_F(TimeOrder, OnTheCpuACallsInputIsWrittenAfterItsFlush) {
  constexpr std::size_t kFlush = std::size_t{64} << 20;
  std::vector<unsigned char> flush_buffer(kFlush, 1);
  hone_harness_host_flush(flush_buffer.data(), kFlush);
  const auto begun = std::chrono::steady_clock::now();
  hone_harness_host_flush(flush_buffer.data(), kFlush);
  const double flush_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begun).count();

  start();
  constexpr int kCalls = 8;
  MemfdArena arena(1024 + kCalls * 64);
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 16; ++i) arena.at<float>(256 + 256 * k)[i] = static_cast<float>(1000 * (k + 1) + i);
  ASSERT_EQ(kind_of(map_host(1, arena)), "ok");
  ASSERT_EQ(kind_of(load("input_age")), "ok");
  const auto x = [&](std::size_t offset) { return tensor_arg(buf(1, offset, {4, 4})); };
  json outputs = json::array(), schedule = json::array();
  for (int j = 0; j < kCalls; ++j) {
    outputs.push_back(json::array({buf(1, 1024 + 64 * j, {4, 4})}));
    schedule.push_back({{"set", j % 2}, {"slot", j}});
  }
  const json r = runner().request(
      "time", {{"mode", "call"}, {"args", json::array({x(0)})},
               {"sets", json::array({json::array({x(256)}), json::array({x(512)})})}, {"outputs", outputs},
               {"schedule", schedule}, {"warmup", 2}, {"settle_ms", 0}, {"flush_bytes", kFlush}, {"release", nullptr}});
  ASSERT_EQ(kind_of(r), "ok") << r.dump();
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_EQ(r["inputs_after_flush"], true) << r.dump();
#endif
  std::vector<float> ages;
  for (int j = 0; j < kCalls; ++j) {
    ages.push_back(arena.at<float>(1024 + 64 * j)[0]);
    EXPECT_EQ(arena.at<float>(1024 + 64 * j)[1], static_cast<float>(1000 * (j % 2 + 1) + 1)) << "slot " << j;
  }
  std::sort(ages.begin(), ages.end());
  EXPECT_LT(ages[kCalls / 2], flush_us / 4) << "a flush of 64 MiB took " << flush_us << " us; the inputs' ages (us): "
                                            << ::testing::PrintToString(ages);
}

TEST_F(TimeChecks, AFailingCallEndsTheOpWithItsErrorAndIndex) {
  ASSERT_EQ(kind_of(load("fails")), "ok");
  json req = base(json::array({json{{"set", 0}, {"slot", 0}}}));
  req["args"] = json::array({x()});
  req["sets"] = json::array({json::array({x(256)})});
  req["warmup"] = 2;
  const json r = runner().request("time", req);
  ASSERT_EQ(kind_of(r), "forward_error") << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("warm-up call 0"), std::string::npos) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("row 3 is not finite"), std::string::npos) << r.dump();
}

}  // namespace
}  // namespace hone::runner_test
