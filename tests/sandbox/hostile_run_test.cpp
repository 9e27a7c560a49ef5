// Hostile candidates at run time: shared libraries loaded by a Python host that imitates the eval
// worker, run through each confinement mode the machine offers. Each must fail to do harm and end
// with a clear outcome; the unconfined controls prove each probe would see the harm.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <chrono>
#include <regex>
#include <thread>

#include "sandbox_fixture.h"
#include "support/hash.h"

namespace hone::sandbox::testing {
namespace {

using namespace std::chrono_literals;

// A TCP listener on 127.0.0.1 that the test owns; tells whether anyone connected.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("cannot listen on 127.0.0.1");
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }
  bool someone_connected() const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 200) > 0;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Secrets in the test's own environment, which every confined command would inherit.
class Secrets {
 public:
  Secrets() {
    for (const auto& [k, v] : vars_) ::setenv(k, v, 1);
  }
  ~Secrets() {
    for (const auto& [k, v] : vars_) ::unsetenv(k);
  }

 private:
  std::vector<std::pair<const char*, const char*>> vars_{{"HONE_LLM_API_KEY", "sk-canary-hone"},
                                                         {"OPENAI_API_KEY", "sk-canary-openai"},
                                                         {"AWS_SECRET_ACCESS_KEY", "sk-canary-aws"},
                                                         {"GITHUB_TOKEN", "sk-canary-github"},
                                                         {"CUDA_API_KEY", "sk-canary-cuda"}};
};

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

class HostileRun : public ModeTest {};

TEST_P(HostileRun, HarmlessCandidateRunsAndReadsItsOwnFiles) {
  Tree t;
  auto r = run_hostile(sandbox(), hostile_policy(t), "read_files", {(t.kernel / "kernel.txt").string()});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "HOST-LOADED"));
  EXPECT_TRUE(contains(r.out, "READ " + (t.kernel / "kernel.txt").string() + ": KERNEL-OK")) << r.out;
}

TEST_P(HostileRun, CannotConnectToAPortOnTheHost) {
  Tree t;
  Listener listener;
  auto r = run_hostile(sandbox(), hostile_policy(t), "net_connect", {std::to_string(listener.port())});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(contains(r.out, "CONNECTED")) << r.out;
  EXPECT_TRUE(contains(r.out, "connect(127.0.0.1)") || contains(r.out, "socket(127.0.0.1)")) << r.out;
  EXPECT_FALSE(listener.someone_connected());
}

TEST_P(HostileRun, CannotReadHomeWorkspaceStoreOrSystemSecrets) {
  Tree t;
  std::vector<std::string> paths{(t.home / ".ssh" / "id_rsa").string(),
                                 (t.ws / "secret.txt").string(),
                                 (t.ws / ".hone" / "hone.db").string(),
                                 (t.kernel / ".env").string(),
                                 "/etc/shadow",
                                 "/proc/" + std::to_string(::getpid()) + "/environ",
                                 (t.kernel / "kernel.txt").string()};
  auto r = run_hostile(sandbox(), hostile_policy(t), "read_files", paths);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << r.out << r.err;
  EXPECT_FALSE(contains(r.out, "CANARY")) << r.out;
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(contains(r.out, "DENIED " + paths[i])) << r.out;
  EXPECT_TRUE(contains(r.out, "DENIED /etc/shadow")) << r.out;
  EXPECT_TRUE(contains(r.out, "DENIED " + paths[5])) << r.out;
  EXPECT_TRUE(contains(r.out, "KERNEL-OK")) << r.out;  // its own files stay readable
}

TEST_P(HostileRun, FindsNoApiKeyInItsEnvironmentOrInProc) {
  Tree t;
  Secrets secrets;
  auto r = run_hostile(sandbox(), hostile_policy(t), "env_secrets", {"sk-canary", std::to_string(::getpid())});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "CLEAN")) << r.out;
  EXPECT_FALSE(contains(r.out + r.err, "sk-canary-")) << r.out;
}

TEST_P(HostileRun, ExplicitEnvironmentLosesItsSecretsToo) {
  Tree t;
  SandboxPolicy policy = hostile_policy(t);
  ProcessSpec spec;
  spec.argv = {kPython, host_script().string(), hostile_library("env_secrets").string(), "sk-canary"};
  spec.env = current_environment();
  (*spec.env)["HONE_LLM_API_KEY"] = "sk-canary-explicit";
  (*spec.env)["DEEPSEEK_API_KEY"] = "sk-canary-deepseek";
  auto r = run_process(sandbox().wrap(spec, policy));
  EXPECT_TRUE(contains(r.out, "CLEAN")) << r.out << r.err;
}

TEST_P(HostileRun, CannotWriteOutsideScratch) {
  Tree t;
  // Read-only inside the view: the kernel's folder, system folders, the root.
  std::vector<fs::path> refused{t.kernel / "pwned", "/usr/pwned", "/etc/pwned", "/pwned"};
  // Host folders outside the view: a write there may only land in the private /tmp, never on the host.
  std::vector<fs::path> elsewhere{t.outside / "pwned", t.home / "pwned", t.ws / "pwned",
                                  "/tmp/hone-sandbox-private-" + std::to_string(::getpid())};
  std::vector<std::string> args;
  for (const auto& p : refused) args.push_back(p.string());
  for (const auto& p : elsewhere) args.push_back(p.string());
  args.push_back((t.scratch / "result.bin").string());
  auto r = run_hostile(sandbox(), hostile_policy(t), "write_outside", args);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << r.out << r.err;
  for (const auto& p : refused) EXPECT_TRUE(contains(r.out, "DENIED " + p.string())) << r.out;
  for (const auto& p : refused) EXPECT_FALSE(fs::exists(p)) << p;
  for (const auto& p : elsewhere) EXPECT_FALSE(fs::exists(p)) << p << " reached the host";
  EXPECT_TRUE(contains(r.out, "WROTE " + (t.scratch / "result.bin").string())) << r.out;
  EXPECT_TRUE(fs::exists(t.scratch / "result.bin"));
}

// A /proc file's text; empty when the process is gone (read_file's stream copy stops at
// the ESRCH of an exiting process's file instead of throwing, as reading it through
// std::istreambuf_iterator did).
std::string proc_text(const fs::path& path) {
  try {
    return hone::read_file(path);
  } catch (const std::runtime_error&) {
    return {};
  }
}

int processes_with(const std::string& marker) {
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec))
    if (contains(proc_text(it->path() / "cmdline"), marker)) ++n;
  return n;
}

TEST_P(HostileRun, ForkBombIsStoppedAndLeavesNothing) {
  Tree t;
  SandboxPolicy policy = hostile_policy(t);
  auto r = run_hostile(sandbox(), policy, "fork_bomb", {"1000", t.root.string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << r.out << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("FORKS (\\d+) STOPPED-BY"))) << r.out;
  EXPECT_LT(std::stoi(m[1]), static_cast<int>(policy.limits.processes));
  EXPECT_EQ(processes_with(t.root.string()), 0);
}

TEST_P(HostileRun, UnboundedAllocationIsStopped) {
  Tree t;
  SandboxPolicy policy = hostile_policy(t);
  auto r = run_hostile(sandbox(), policy, "allocate", {"8192"});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << r.out << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("ALLOC-FAILED after (\\d+) MiB"))) << r.out;
  EXPECT_LT(std::stoll(m[1]), static_cast<long long>(policy.limits.address_space_bytes >> 20));
  EXPECT_TRUE(contains(r.out, "OOM-SCORE-ADJ 1000")) << "the OOM killer's first choice: " << r.out;
}

TEST_P(HostileRun, StdoutFloodIsCutAtTheDeadline) {
  Tree t;
  auto r = run_hostile(sandbox(), hostile_policy(t), "flood", {"stdout"}, 1500ms, 1u << 20);
  EXPECT_TRUE(r.timed_out) << r.describe();
  EXPECT_TRUE(r.output_truncated);
  EXPECT_LE(r.out.size(), 1u << 20);
  EXPECT_LT(r.seconds, 10.0);
}

TEST_P(HostileRun, FileFloodStopsAtTheFileSizeLimit) {
  Tree t;
  SandboxPolicy policy = hostile_policy(t);
  auto r = run_hostile(sandbox(), policy, "flood", {"file", (t.scratch / "big").string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "FILE-STOPPED at " + std::to_string(policy.limits.file_size_bytes) + " bytes")) << r.out;
  EXPECT_LE(fs::file_size(t.scratch / "big"), policy.limits.file_size_bytes);
}

TEST_P(HostileRun, SleeperIsKilledAtTheDeadlineWithItsEscapee) {
  Tree t;
  const fs::path alive = t.scratch / "alive";
  auto r = run_hostile(sandbox(), hostile_policy(t), "sleep_forever", {alive.string()}, 1500ms);
  EXPECT_TRUE(r.timed_out) << r.describe() << r.out << r.err;
  EXPECT_LT(r.seconds, 5.0);
  ASSERT_TRUE(fs::exists(alive)) << "the escapee never ran: " << r.out << r.err;
  std::this_thread::sleep_for(300ms);
  auto size = fs::file_size(alive);
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(fs::file_size(alive), size) << "the escapee outlived the deadline";
}

TEST_P(HostileRun, CannotKillItsParentOrAnyoneOutside) {
  Tree t;
  auto user = sandbox().sandbox_user();
  // A sentinel process of the very user candidates run as: only the pid namespace protects it.
  pid_t sentinel = ::fork();
  ASSERT_GE(sentinel, 0);
  if (sentinel == 0) {
    if (user && (::setresgid(user->second, user->second, user->second) != 0 ||
                 ::setresuid(user->first, user->first, user->first) != 0))
      _exit(1);
    for (;;) ::pause();
  }
  auto r =
      run_hostile(sandbox(), hostile_policy(t), "kill_parent", {std::to_string(::getpid()), std::to_string(sentinel)});
  EXPECT_TRUE(contains(r.out, "SURVIVED") || r.signal == SIGKILL) << r.describe() << r.out << r.err;
  EXPECT_EQ(::waitpid(sentinel, nullptr, WNOHANG), 0) << "the sentinel was killed";
  ::kill(sentinel, SIGKILL);
  ::waitpid(sentinel, nullptr, 0);
}

TEST_P(HostileRun, CpuTimeLimitEndsASpinner) {
  Tree t;
  SandboxPolicy policy = hostile_policy(t);
  policy.limits.cpu_seconds = 1;
  ProcessSpec spec;
  spec.argv = {kPython, "-c", "while True: pass"};
  spec.timeout = std::chrono::seconds(30);
  auto r = sandbox().unwrap_result(run_process(sandbox().wrap(spec, policy)));
  EXPECT_EQ(r.signal, SIGXCPU) << r.describe() << r.err;
  EXPECT_LT(r.seconds, 10.0);
}

// Runs `spec` from a launcher that leaves descriptor 9 open on `file` (as a careless parent
// holding the store or an API connection without close-on-exec would).
ProcessResult run_with_leaked_descriptor(ProcessSpec spec, const fs::path& file) {
  std::vector<std::string> argv{"sh", "-c", "exec 9<\"$0\"; exec \"$@\"", file.string()};
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  spec.argv = argv;
  return run_process(spec);
}

const char* kListDescriptors = "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))";

TEST_P(HostileRun, InheritsNoDescriptorButStdio) {
  Tree t;
  ProcessSpec spec;
  spec.argv = {kPython, "-c", kListDescriptors};
  auto r = run_with_leaked_descriptor(sandbox().wrap(spec, hostile_policy(t)), t.ws / "secret.txt");
  EXPECT_EQ(r.out, "[0, 1, 2, 3]\n") << r.describe() << r.err;
}

// Starts `spec` from a thread that ends soon after (as hone's scheduler or worker-slot threads
// may: a parent-death signal follows the parent *thread*), and returns the exit status.
int run_from_short_lived_thread(const ProcessSpec& spec) {
  std::vector<std::string> env_lines;
  for (const auto& [k, v] : *spec.env) env_lines.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  for (const auto& e : env_lines) envp.push_back(const_cast<char*>(e.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const std::string exe = find_program(spec.argv[0]).value_or(spec.argv[0]).string();
  pid_t pid = -1;
  std::thread starter([&] {
    pid = ::fork();
    if (pid == 0) {
      ::execve(exe.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    std::this_thread::sleep_for(300ms);  // the sandbox is up by now
  });
  starter.join();
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

TEST_P(HostileRun, OutlivesTheThreadThatStartedIt) {
  Tree t;
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 1; exit 7"};
  int status = run_from_short_lived_thread(sandbox().wrap(spec, hostile_policy(t)));
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 7) << "the sandbox died with the thread that started it";
}

TEST_P(HostileRun, SignalDeathIsReportedAsASignal) {
  Tree t;
  ProcessSpec spec;
  spec.argv = {kPython, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"};
  auto r = sandbox().unwrap_result(run_process(sandbox().wrap(spec, hostile_policy(t))));
  EXPECT_EQ(r.signal, SIGSEGV) << r.describe() << r.err;
  EXPECT_EQ(r.describe(), "killed by SIGSEGV");
}

INSTANTIATE_TEST_SUITE_P(Modes, HostileRun, ::testing::Values(SandboxMode::bwrap, SandboxMode::namespaces), mode_name);

// Controls: without the sandbox the same probes do see the harm, so the tests above can fail.
TEST(UnconfinedControl, ProbesSeeTheHarmWithoutASandbox) {
  Tree t;
  Sandbox none(SandboxMode::none, true, detected_support());
  Listener listener;
  auto net = run_hostile(none, hostile_policy(t), "net_connect", {std::to_string(listener.port())});
  EXPECT_TRUE(contains(net.out, "CONNECTED 127.0.0.1")) << net.out;
  EXPECT_TRUE(listener.someone_connected());
  auto read = run_hostile(none, hostile_policy(t), "read_files", {(t.home / ".ssh" / "id_rsa").string()});
  EXPECT_TRUE(contains(read.out, "CANARY-HOME-ID-RSA")) << read.out;
  auto write = run_hostile(none, hostile_policy(t), "write_outside", {(t.outside / "pwned").string()});
  EXPECT_TRUE(fs::exists(t.outside / "pwned")) << write.out;
}

TEST(UnconfinedControl, ALeakedDescriptorIsSeenWithoutASandbox) {
  Tree t;
  ProcessSpec spec;
  spec.argv = {kPython, "-c", kListDescriptors};
  auto r = run_with_leaked_descriptor(spec, t.ws / "secret.txt");
  EXPECT_NE(r.out.find(", 9]"), std::string::npos) << r.out << r.err;
}

TEST(UnconfinedControl, SecretsAreRemovedEvenWithoutASandbox) {
  Tree t;
  Secrets secrets;
  Sandbox none(SandboxMode::none, true, detected_support());
  auto r = run_hostile(none, hostile_policy(t), "env_secrets", {"sk-canary"});
  EXPECT_FALSE(contains(r.out, "FOUND in my environment")) << r.out;
}

}  // namespace
}  // namespace hone::sandbox::testing
