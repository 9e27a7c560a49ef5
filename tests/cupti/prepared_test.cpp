// tests/cupti/prepared_test.cpp: kernel counters set up ahead (hone_cupti_prepare, issue 14): the
// Range Profiler's ~1-2 s set-up per process is why device time is not counted the way ncu counts
// it by default. A prepared session must be started, not set up again, by the begin that asks for
// the same counters, and must count every kernel; a begin asking for other counters discards it.
// Two measurements decide whether candidate processes may prepare while they wait in the pool,
// and are printed for docs/gpu-runs.md: what an idle prepared profiler costs the calls timed
// beside it (kernel durations in the activity records, host time per launch + synchronize), and
// whether a second process can prepare on the same GPU meanwhile. Skips without a GPU.
#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu_kernels.h"
#include "hone_cupti.h"

extern char** environ;

namespace hone::cupti_test {
namespace {

using nlohmann::json;

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA GPU here: scripts/gpu/profile.sh runs this on the H200"

constexpr const char* kChildVariable = "HONE_CUPTI_PREPARED_CHILD";

// The counters hone-runner asks for in a counted `time` op (server/runner/time_op.cpp).
json gpu_time_request() {
  return {{"metrics", json::array({"gpu__time_duration.sum"})}, {"max_ranges", 64}, {"max_passes", 1}};
}

json call(const char* answer) { return json::parse(answer); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Host microseconds per vec_add (launch + synchronize), the median of `calls`.
double host_us_per_call(std::int64_t n, int calls) {
  std::vector<double> us;
  for (int i = 0; i < calls; ++i) {
    const auto t = std::chrono::steady_clock::now();
    vec_add(n);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count());
  }
  return median(us);
}

// hone_cupti_begin(request), `calls` vec_adds of n floats, hone_cupti_end: the end answer (both
// asserted to succeed).
json recorded(const json& request, std::int64_t n, int calls) {
  json begun = call(hone_cupti_begin(request.dump().c_str()));
  EXPECT_TRUE(begun["ok"].get<bool>()) << begun.dump();
  if (!begun["ok"].get<bool>()) return begun;
  for (int i = 0; i < calls; ++i) vec_add(n);
  json end = call(hone_cupti_end());
  EXPECT_TRUE(end["ok"].get<bool>()) << end.dump();
  return end;
}

// The activity records' median kernel duration (us) over `calls` vec_adds.
double record_us_per_kernel(std::int64_t n, int calls) {
  json end = recorded({{"activity", true}}, n, calls);
  std::vector<double> us;
  for (const json& k : end["activity"]["kernels"]) us.push_back(k["duration_ns"].get<double>() / 1000.0);
  EXPECT_EQ(us.size(), static_cast<std::size_t>(calls)) << "the activity records lost kernels";
  return median(us);
}

TEST(PreparedCounters, BeginStartsThePreparedSessionAndCountsEveryKernel) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 22;
  vec_add(n);
  json prepared = call(hone_cupti_prepare(gpu_time_request().dump().c_str()));
  ASSERT_TRUE(prepared["ok"].get<bool>()) << prepared.dump();

  json end = recorded(gpu_time_request(), n, 3);
  ASSERT_EQ(end["metrics"]["ranges"].size(), 3u) << end.dump();
  for (const json& r : end["metrics"]["ranges"])
    EXPECT_GT(r["values"].value("gpu__time_duration.sum", -1.0), 0.0) << r.dump();
  ASSERT_TRUE(end["seconds"].contains("prepared_ahead")) << "the begin set the profiler up again: " << end.dump();
  ASSERT_TRUE(end["seconds"]["setup_stages"].contains("start")) << end.dump();
  std::printf("[prepared counters] set-up ahead %.3f s %s; the begin on the critical path %.3f s (start %.3f s)\n",
              prepared["seconds"]["setup"].get<double>(), prepared["seconds"]["setup_stages"].dump().c_str(),
              end["seconds"]["setup"].get<double>(), end["seconds"]["setup_stages"]["start"].get<double>());

  // Other counters: the prepared session is discarded and the begin sets up its own.
  ASSERT_TRUE(call(hone_cupti_prepare(gpu_time_request().dump().c_str()))["ok"].get<bool>());
  json other_end = recorded({{"metrics", "default"}, {"dtype", "fp32"}}, n, 1);
  EXPECT_EQ(other_end["metrics"]["ranges"].size(), 1u) << other_end.dump();
  EXPECT_FALSE(other_end["seconds"].contains("prepared_ahead")) << other_end.dump();
}

TEST(PreparedCounters, WhatAnIdlePreparedProfilerCostsTheCallsTimedBesideIt) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 20;  // ~3 us: a per-launch tax shows
  const int calls = 300;
  vec_add(n);
  const double host_before = host_us_per_call(n, calls);
  const double record_before = record_us_per_kernel(n, calls);
  json prepared = call(hone_cupti_prepare(gpu_time_request().dump().c_str()));
  ASSERT_TRUE(prepared["ok"].get<bool>()) << prepared.dump();
  const double host_prepared = host_us_per_call(n, calls);
  const double record_prepared = record_us_per_kernel(n, calls);
  std::printf("[prepared counters] idle prepared profiler: host us per launch+sync %.2f -> %.2f (x%.3f); "
              "activity record us per kernel %.3f -> %.3f (x%.3f)\n",
              host_before, host_prepared, host_prepared / host_before, record_before, record_prepared,
              record_prepared / record_before);
  // The activity recording left the prepared session in place: the counted begin still starts it.
  json end = recorded(gpu_time_request(), n, 1);
  EXPECT_TRUE(end["seconds"].contains("prepared_ahead")) << end.dump();
  EXPECT_EQ(end["metrics"]["ranges"].size(), 1u) << end.dump();
}

// Runs this test binary again as a child that prepares and counts (PreparedCountersChild) while
// this process holds a prepared session; returns the child's exit status and prints its lines.
int run_child() {
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return -1;
  self[len] = '\0';
  std::string filter = "--gtest_filter=PreparedCountersChild.*";
  char* argv[] = {self, filter.data(), nullptr};
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
  env_text.push_back(std::string(kChildVariable) + "=1");
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, self, nullptr, nullptr, argv, env.data()) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(PreparedCounters, ASecondProcessPreparesOnTheSameGpu) {
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 22;
  vec_add(n);
  json prepared = call(hone_cupti_prepare(gpu_time_request().dump().c_str()));
  ASSERT_TRUE(prepared["ok"].get<bool>()) << prepared.dump();
  const int child = run_child();
  std::printf("[prepared counters] a second process preparing and counting while this one holds a prepared "
              "session: %s (exit %d)\n", child == 0 ? "works" : "FAILS", child);
  EXPECT_EQ(child, 0) << "pool slots could not each prepare: see the child's lines above";
  json end = recorded(gpu_time_request(), n, 1);
  EXPECT_EQ(end["metrics"]["ranges"].size(), 1u) << end.dump();
}

// The child's side of ASecondProcessPreparesOnTheSameGpu (skips unless that test started it).
TEST(PreparedCountersChild, PreparesAndCounts) {
  if (!std::getenv(kChildVariable)) GTEST_SKIP() << "run by PreparedCounters.ASecondProcessPreparesOnTheSameGpu";
  REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 22;
  vec_add(n);
  json prepared = call(hone_cupti_prepare(gpu_time_request().dump().c_str()));
  std::printf("[prepared counters] child prepare: %s\n", prepared.dump().c_str());
  ASSERT_TRUE(prepared["ok"].get<bool>());
  json end = recorded(gpu_time_request(), n, 1);
  EXPECT_EQ(end["metrics"]["ranges"].size(), 1u) << end.dump();
}

}  // namespace
}  // namespace hone::cupti_test
