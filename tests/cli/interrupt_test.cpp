// tests/cli/interrupt_test.cpp: `hone` ended by a signal (Ctrl-C, a timeout's SIGTERM) must take
// its running children with it. A stand-in host compiler (HONE_CXX) records its pid and hangs;
// the real hone binary is sent SIGTERM mid-build; the compiler's whole process group must be gone.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

TEST(Interrupt, SigtermDuringABuildKillsTheCompiler) {
  const fs::path dir = fs::temp_directory_path() / ("hone-interrupt-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path mark = dir / "compiler.pid", child_mark = dir / "grandchild.pid";
  const fs::path cxx = dir / "hanging-cxx";
  {
    std::ofstream s(cxx);
    s << "#!/bin/sh\n"
      << "case \"$*\" in *--version*|*-dumpversion*|*-dumpfullversion*) echo 'g++ (stand-in) 12.2.0'; exit 0;; esac\n"
      << "sleep 300 &\necho $! > '" << child_mark.string() << "'\n"
      << "echo $$ > '" << mark.string() << "'\nwait\n";
  }
  fs::permissions(cxx, fs::perms::owner_all);
  const fs::path kernel = dir / "k.cpp";
  std::ofstream(kernel) << "#include \"hone.h\"\nvoid forward(hone::In<float> x, hone::Out<float> out) {}\n";

  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  env_strings.push_back("HONE_CXX=" + cxx.string());
  env_strings.push_back("HONE_CACHE_DIR=" + (dir / "cache").string());
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  // Unconfined: the stand-in writes its pids beside the kernel, which a confined compiler cannot.
  std::string a0 = HONE_CLI, a1 = "build", a2 = kernel.string(), a3 = "--no-cache", a4 = "--no-sandbox";
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), nullptr};
  pid_t hone = 0;
  ASSERT_EQ(::posix_spawn(&hone, HONE_CLI, nullptr, nullptr, argv, envp.data()), 0);

  pid_t compiler = 0, grandchild = 0;
  for (auto until = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(50ms)) {
    std::ifstream m(mark), g(child_mark);
    if (m >> compiler && g >> grandchild) break;
  }
  ASSERT_GT(compiler, 0) << "the stand-in compiler never started (is the build sandboxed without HONE_CXX?)";
  ASSERT_TRUE(alive(compiler));

  ASSERT_EQ(::kill(hone, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(hone, &status, 0), hone);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  bool gone = false;
  for (auto until = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < until && !gone;
       std::this_thread::sleep_for(50ms))
    gone = !alive(compiler) && !alive(grandchild);
  EXPECT_TRUE(gone) << "compiler " << compiler << " or its child " << grandchild << " outlived hone";
  if (!gone) {
    ::kill(compiler, SIGKILL);
    ::kill(grandchild, SIGKILL);
  }
  fs::remove_all(dir);
}

}  // namespace
