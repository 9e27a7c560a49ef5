// bench/sandbox_overhead.cpp: what confinement adds to one command: a no-op (/usr/bin/true) run
// directly and through each usable sandbox mode with an eval-worker-like policy, many times;
// prints medians, the ratio and the added milliseconds (the budget is 50 ms per warm check).
// Usage: sandbox_overhead [RUNS] [PYTHON]
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sandbox/sandbox.h"

namespace {

namespace fs = std::filesystem;
using hone::ProcessSpec;
using namespace hone::sandbox;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time (user + system) used by finished children so far, in ms.
double children_cpu_ms() {
  struct rusage u {};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

struct Timed {
  double wall_ms;  // median
  double cpu_ms;   // mean CPU time of the whole process tree: what the load of the machine does not inflate
};

// Times `runs` runs of `spec`; exits on the first failure.
Timed time_runs(const ProcessSpec& spec, int runs) {
  std::vector<double> ms;
  const double cpu0 = children_cpu_ms();
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    hone::ProcessResult r = hone::run_process(spec);
    ms.push_back(ms_since(t0));
    if (!r.ok()) {
      std::fprintf(stderr, "sandbox_overhead: the no-op failed (%s): %s\n", r.describe().c_str(), r.err.c_str());
      std::exit(1);
    }
  }
  return {median(ms), (children_cpu_ms() - cpu0) / runs};
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100;
  const fs::path python = argc > 2 ? argv[2] : "/usr/bin/python3";
  std::string tmpl = (fs::temp_directory_path() / "hone-overhead-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return 1;
  fs::path scratch = tmpl;
  fs::permissions(scratch, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);

  SandboxSupport support = detect_support();
  std::vector<fs::path> reads;
  try {
    reads = python_read_paths(python);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sandbox_overhead: %s (continuing with system folders only)\n", e.what());
  }
  SandboxPolicy policy = run_policy(scratch / "worker", reads, false);
  ProcessSpec noop;
  noop.argv = {"/usr/bin/true"};
  noop.timeout = std::chrono::seconds(30);

  std::ifstream loadavg("/proc/loadavg");
  std::string load;
  loadavg >> load;
  std::printf("sandbox_overhead: /usr/bin/true, %d runs each, median wall time (load average %s on %u cores)\n", runs,
              load.c_str(), std::thread::hardware_concurrency());
  const Timed direct = time_runs(noop, runs);
  std::printf("  %-11s %8.2f ms  (cpu %.2f ms)\n", "direct", direct.wall_ms, direct.cpu_ms);
  int status = 0;
  for (SandboxMode mode : {SandboxMode::namespaces, SandboxMode::bwrap}) {
    if (!support.usable(mode)) {
      std::printf("  %-11s not usable here\n", std::string(to_string(mode)).c_str());
      continue;
    }
    Sandbox sandbox(mode, false, support);
    std::vector<double> wrap_ms;
    ProcessSpec wrapped;
    for (int i = 0; i < 20; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      wrapped = sandbox.wrap(noop, policy);
      wrap_ms.push_back(ms_since(t0));
    }
    const Timed confined = time_runs(wrapped, runs);
    const double added = confined.wall_ms - direct.wall_ms + median(wrap_ms);
    std::printf("  %-11s %8.2f ms  ratio %5.2fx  added %6.2f ms (wrap() %.2f ms; cpu %.2f ms, +%.2f)%s\n",
                std::string(to_string(mode)).c_str(), confined.wall_ms, confined.wall_ms / direct.wall_ms, added,
                median(wrap_ms), confined.cpu_ms, confined.cpu_ms - direct.cpu_ms,
                added < 50 ? "" : "  OVER the 50 ms budget");
    if (added >= 50) status = 1;
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return status;
}
