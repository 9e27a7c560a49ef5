// tests/eval/worker_process_test.cpp: the worker supervisor over real processes and pipes, driven
// by a scripted process that speaks the worker protocol and crashes, hangs or floods on request.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "eval/worker_slot.h"
#include "support/oom_kills.h"

namespace hone::eval {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

ProcessSpec scripted_spec() {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", std::string(HONE_EVAL_FIXTURES) + "/scripted_worker.py"};
  return spec;
}

WorkerSlot make_slot(std::chrono::milliseconds start_timeout = 20s) {
  WorkerSlotOptions o;
  o.device = protocol::Device::cpu();
  o.make_spec = scripted_spec;
  o.start_timeout = start_timeout;
  return WorkerSlot(std::move(o));
}

TEST(WorkerProcess, EchoRoundTrip) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("echo", json{{"x", 1}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(r.result["x"], 1);
  r = p.request("echo", json{{"y", "two"}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(r.result["y"], "two");
}

TEST(WorkerProcess, ProgressIsDeliveredBeforeTheResult) {
  WorkerProcess p(scripted_spec(), {});
  std::vector<std::string> seen;
  WorkerReply r = p.request("progress", json{{"count", 3}}, 10s, {},
                            [&](const json& pr) { seen.push_back(pr.value("message", "")); });
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(seen, (std::vector<std::string>{"trial 1", "trial 2", "trial 3"}));
}

TEST(WorkerProcess, SegfaultGivesSignalAndLastStderrLines) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("segfault", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  EXPECT_EQ(r.evidence.signal.value_or(""), "SIGSEGV");
  ASSERT_FALSE(r.evidence.stderr_tail.empty());
  EXPECT_EQ(r.evidence.stderr_tail.back(), "calling candidate forward (trial 1, seed 7)");
  EXPECT_FALSE(p.running());
}

TEST(WorkerProcess, AbortAndExitCodeAreReported) {
  WorkerProcess a(scripted_spec(), {});
  WorkerReply r = a.request("abort", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  EXPECT_EQ(r.evidence.signal.value_or(""), "SIGABRT");

  WorkerProcess e(scripted_spec(), {});
  r = e.request("exit", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  EXPECT_FALSE(r.evidence.signal);
  EXPECT_EQ(r.evidence.exit_code.value_or(-1), 3);
  EXPECT_EQ(r.evidence.stderr_tail.back(), "exiting with 3");
}

TEST(WorkerProcess, ASigkillSaysWhetherTheOutOfMemoryKillerActed) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("sigkill", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  EXPECT_EQ(r.evidence.signal.value_or(""), "SIGKILL");
  if (oom_kill_count()) {  // /proc/vmstat has oom_kill (Linux 4.13 on): the process killed itself
    EXPECT_EQ(r.evidence.oom_kills, std::optional<int>(0));
  } else {
    EXPECT_FALSE(r.evidence.oom_kills);
  }
  // A segfault is not a kill: no count is taken.
  WorkerProcess q(scripted_spec(), {});
  r = q.request("segfault", json::object(), 10s, {}, nullptr);
  EXPECT_FALSE(r.evidence.oom_kills);
}

TEST(WorkerProcess, AConfinementWrappersExitCodeIsReadBackAsTheSignal) {
  WorkerProcess plain(scripted_spec(), {});
  WorkerReply r = plain.request("exit_with", json{{"code", 139}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  EXPECT_EQ(r.evidence.exit_code.value_or(-1), 139);
  EXPECT_FALSE(r.evidence.signal);

  WorkerProcessOptions wrapped;
  wrapped.exit_code_carries_signal = true;
  WorkerProcess confined(scripted_spec(), wrapped);
  r = confined.request("exit_with", json{{"code", 139}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  EXPECT_EQ(r.evidence.signal.value_or(""), "SIGSEGV");
  EXPECT_FALSE(r.evidence.exit_code);
}

TEST(WorkerProcess, DeadlineKillsTheProcessGroupPromptly) {
  WorkerProcess p(scripted_spec(), {});
  int pid = p.pid();
  auto t0 = std::chrono::steady_clock::now();
  WorkerReply r = p.request("sleep", json{{"seconds", 60}}, 500ms, {}, nullptr);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(r.kind, WorkerReply::Kind::TimedOut);
  EXPECT_LT(took, 5s);
  EXPECT_GE(took, 500ms);
  EXPECT_EQ(r.evidence.stderr_tail.back(), "sleeping 60 s");
  EXPECT_FALSE(p.running());
  EXPECT_NE(::kill(pid, 0), 0);  // gone (reaped)
}

TEST(WorkerProcess, StopTokenCancelsAHungRequest) {
  WorkerProcess p(scripted_spec(), {});
  std::stop_source source;
  std::thread stopper([&] {
    std::this_thread::sleep_for(300ms);
    source.request_stop();
  });
  WorkerReply r = p.request("sleep", json{{"seconds", 60}}, 60s, source.get_token(), nullptr);
  stopper.join();
  EXPECT_EQ(r.kind, WorkerReply::Kind::Cancelled);
  EXPECT_FALSE(p.running());
}

TEST(WorkerProcess, PrintsOnStdoutDoNotCorruptTheProtocol) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("print_stdout", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  auto tail = p.stderr_tail();
  EXPECT_NE(std::find(tail.begin(), tail.end(), "a task printing to stdout"), tail.end());
}

TEST(WorkerProcess, StderrRingKeepsTheLastLinesOnly) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("stderr_flood", json{{"lines", 5000}}, 20s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  // The reply can overtake the last stderr bytes; wait until they are in.
  for (int i = 0; i < 100 && (p.stderr_tail().empty() || p.stderr_tail().back() != "line 4999"); ++i)
    std::this_thread::sleep_for(20ms);
  auto tail = p.stderr_tail();
  ASSERT_EQ(tail.size(), WorkerProcess::kStderrLines);
  EXPECT_EQ(tail.back(), "line 4999");
  EXPECT_EQ(tail.front(), "line 4800");
}

TEST(WorkerProcess, GarbageAndForeignRepliesOnTheProtocolStreamAreSetAside) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("garbage", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(r.result["after"], "garbage");
  auto tail = p.stderr_tail();
  bool kept = false;
  for (const auto& l : tail) kept = kept || l.find("this is not JSON") != std::string::npos;
  EXPECT_TRUE(kept) << "the stray line is kept as evidence";
  EXPECT_EQ(p.request("echo", json{{"k", 1}}, 10s, {}, nullptr).result["k"], 1);
}

TEST(WorkerProcess, LargeRepliesArrive) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("big", json{{"bytes", 5 << 20}}, 20s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(r.result["data"].get<std::string>().size(), 5u << 20);
}

TEST(WorkerProcess, ProtocolErrorsCarryCodeMessageAndTraceback) {
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("error", json{{"code", "task_error"}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Error);
  EXPECT_EQ(r.error_code, "task_error");
  EXPECT_EQ(r.error_message, "task has no class Model");
  EXPECT_EQ(r.traceback, "Traceback: ...");
}

TEST(WorkerProcess, InheritsNoOtherDescriptorsOfThisProcess) {
  // A stray pipe end in a long-lived worker would keep another child's pipe open (and its
  // reader waiting for an end of file that never comes).
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string stray = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fds[1])).string();
  WorkerProcess p(scripted_spec(), {});
  WorkerReply r = p.request("fds", json::object(), 10s, {}, nullptr);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  for (const auto& link : r.result["fds"]) EXPECT_NE(link, stray) << "the worker inherited a pipe: " << r.result.dump();
  // stdin, stdout, stderr and the worker's private copies of the protocol pipes.
  EXPECT_LE(r.result["fds"].size(), 5u) << r.result.dump();
}

TEST(WorkerProcess, MissingInterpreterIsAClearError) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/python3", "-m", "hone_worker"};
  try {
    WorkerProcess p(spec, {});
    FAIL() << "started a missing program";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/python3"), std::string::npos) << e.what();
  }
}

TEST(WorkerSlot, RestartsAfterACrashAndTheNextCallWorks) {
  WorkerSlot slot = make_slot();
  WorkerReply r = slot.call("pid", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  int first = r.result["pid"];
  EXPECT_EQ(slot.starts(), 1);
  r = slot.call("segfault", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Died);
  r = slot.call("pid", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_NE(r.result["pid"].get<int>(), first);
  EXPECT_EQ(slot.starts(), 2);
}

TEST(WorkerSlot, RestartsAfterADeadlineAndAfterRestartRequired) {
  WorkerSlot slot = make_slot();
  WorkerReply r = slot.call("sleep", json{{"seconds", 30}}, 300ms, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::TimedOut);
  r = slot.call("echo", json{{"a", 1}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(slot.starts(), 2);
  r = slot.call("restart", json::object(), 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_TRUE(r.result["restart_required"].get<bool>());
  r = slot.call("echo", json{{"a", 2}}, 10s, {}, nullptr);
  ASSERT_EQ(r.kind, WorkerReply::Kind::Result);
  EXPECT_EQ(slot.starts(), 3);
}

TEST(WorkerSlot, KeepsOneWorkerAcrossCalls) {
  WorkerSlot slot = make_slot();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(slot.call("echo", json{{"i", i}}, 10s, {}, nullptr).kind, WorkerReply::Kind::Result);
  EXPECT_EQ(slot.starts(), 1);
  EXPECT_EQ(slot.hello({}, nullptr)["torch"], "none");
}

TEST(WorkerSlot, ConcurrentCallersAreSerialised) {
  WorkerSlot slot = make_slot();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        WorkerReply r = slot.call("echo", json{{"t", t}, {"i", i}}, 10s, {}, nullptr);
        if (r.kind == WorkerReply::Kind::Result && r.result["t"] == t && r.result["i"] == i) ++ok;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(slot.starts(), 1);
}

TEST(WorkerSlot, AWorkerThatCannotStartIsAStartErrorWithItsOutput) {
  WorkerSlotOptions o;
  o.device = protocol::Device::cpu();
  o.make_spec = [] {
    ProcessSpec spec;
    spec.argv = {"/usr/bin/python3", "-c", "import sys; print('No module named torch', file=sys.stderr); sys.exit(1)"};
    return spec;
  };
  WorkerSlot slot(std::move(o));
  try {
    slot.call("echo", json::object(), 10s, {}, nullptr);
    FAIL() << "expected a start error";
  } catch (const WorkerStartError& e) {
    EXPECT_NE(std::string(e.what()).find("exited with code 1"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("No module named torch"), std::string::npos) << e.detail();
  }
}

}  // namespace
}  // namespace hone::eval
