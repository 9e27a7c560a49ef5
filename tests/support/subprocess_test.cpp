// Tests of run_process against real programs: output capture, exit codes, signals, deadlines.
#include "support/subprocess.h"

#include <gtest/gtest.h>

#include <stop_token>
#include <thread>

namespace hone {
namespace {

TEST(RunProcess, CapturesStdoutStderrAndExitCode) {
  auto r = run_process({.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"}});
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit code 3");
}

TEST(RunProcess, FeedsStdin) {
  auto r = run_process({.argv = {"cat"}, .stdin_data = "hello"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "hello");
}

TEST(RunProcess, ReportsSignal) {
  auto r = run_process({.argv = {"sh", "-c", "kill -SEGV $$"}});
  EXPECT_EQ(r.signal, 11);
  EXPECT_EQ(r.describe(), "killed by SIGSEGV");
}

TEST(RunProcess, KillsWholeGroupAtDeadline) {
  // The grandchild holds the pipes open; the deadline must end it too, promptly.
  auto r = run_process({.argv = {"sh", "-c", "sleep 30 & sleep 30"}, .timeout = std::chrono::milliseconds(300)});
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_NE(r.describe().find("timed out"), std::string::npos);
}

TEST(RunProcess, StopRequestFromAnotherThreadKillsTheGroup) {
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.request_stop();
  });
  auto r = run_process({.argv = {"sh", "-c", "sleep 30 & sleep 30"}, .stop = stop.get_token()});
  stopper.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(r.describe(), "cancelled");
}

TEST(RunProcess, MissingProgramIsReportedNotThrown) {
  auto r = run_process({.argv = {"hone-no-such-program"}});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("not found"), std::string::npos);
}

TEST(RunProcess, CapsOutput) {
  auto r = run_process({.argv = {"sh", "-c", "head -c 100000 /dev/zero"}, .max_output_bytes = 1000});
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_TRUE(r.output_truncated);
}

TEST(RunProcess, UsesGivenEnvironmentAndCwd) {
  auto r = run_process({.argv = {"sh", "-c", "echo $FOO; pwd"}, .cwd = "/tmp", .env = std::map<std::string, std::string>{{"FOO", "bar"}, {"PATH", "/usr/bin:/bin"}}});
  EXPECT_EQ(r.out, "bar\n/tmp\n");
}

}  // namespace
}  // namespace hone
