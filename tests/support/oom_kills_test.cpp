// tests/support/oom_kills_test.cpp: the machine's OOM-kill count and the words a SIGKILL gets.
#include "support/oom_kills.h"

#include <fstream>

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(OomKills, TheCountIsVmstatsWhereItHasOne) {
  std::ifstream in("/proc/vmstat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto at = text.find("\noom_kill ");
  if (at == std::string::npos) {
    EXPECT_FALSE(oom_kill_count());
    return;
  }
  auto count = oom_kill_count();
  ASSERT_TRUE(count);
  EXPECT_GE(*count, std::stoull(text.substr(at + 10)));  // it only rises
}

TEST(OomKills, TheRiseSinceAReadingAndNoneWithoutOne) {
  EXPECT_FALSE(oom_kills_since(std::nullopt));
  auto now = oom_kill_count();
  if (!now) GTEST_SKIP() << "/proc/vmstat has no oom_kill here";
  if (*now >= 3) {
    EXPECT_GE(oom_kills_since(*now - 3).value_or(-1), 3);
  }
  EXPECT_EQ(oom_kills_since(*now + 5), std::optional<int>(0));  // a count that fell (a reboot) is no kill
}

TEST(OomKills, TheClauseSaysWhatTheCountShows) {
  EXPECT_EQ(sigkill_clause(std::nullopt, "the worker"), "the system may have run out of memory");
  EXPECT_EQ(sigkill_clause(0, "the worker"),
            "not by the kernel's out-of-memory killer (/proc/vmstat's oom_kill did not rise while the worker ran)");
  EXPECT_NE(sigkill_clause(1, "the worker").find("ended 1 process while the worker ran"), std::string::npos);
  EXPECT_NE(sigkill_clause(2, "the worker").find("ended 2 processes while the worker ran"), std::string::npos);
}

}  // namespace
}  // namespace hone
