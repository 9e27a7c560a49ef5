// tests/adversarial/cuda/tamper.h: what the tampering kernels of this folder do from their static
// constructors, inside whatever process loads them: run Python there (when that process has an
// interpreter: the python runner has one, hone-runner has none), hot-patch C functions of the
// process (libc's clock_gettime, and the CUDA runtime's and driver's event timers, each slowed 50
// times), and plant files for the next process started in the same folder. Before issue 13 all
// of it ran inside the judge; now it reaches only the candidate's own process, which ends after
// this one candidate. (tests/adversarial/cpu/tamper.h is the host-only half.)
#pragma once

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace tamper {

// Runs Python source in this process when it has an interpreter; false when it has none.
inline bool run_python(const char* source) {
  using Run = int (*)(const char*);
  using Ensure = int (*)();
  using Release = void (*)(int);
  auto run = reinterpret_cast<Run>(dlsym(RTLD_DEFAULT, "PyRun_SimpleString"));
  auto ensure = reinterpret_cast<Ensure>(dlsym(RTLD_DEFAULT, "PyGILState_Ensure"));
  auto release = reinterpret_cast<Release>(dlsym(RTLD_DEFAULT, "PyGILState_Release"));
  if (!run || !ensure || !release) return false;
  const int state = ensure();
  run(source);
  release(state);
  return true;
}

// The Python that rebinds the reference's op (torch.relu) to the identity, as the kernel that
// gave issue 13 its "correct" did from inside the old worker.
inline constexpr const char* kRebindRelu =
    "import torch\n"
    "def _same(x, *args, **kwargs):\n"
    "    return x.clone()\n"
    "torch.relu = _same\n"
    "torch.nn.functional.relu = _same\n"
    "torch.Tensor.relu = _same\n";

// The Python that makes every comparison pass: torch's, and the judge's own (its modules are
// importable wherever hone's worker package is).
inline constexpr const char* kPatchCompare =
    "import torch\n"
    "def _yes(*args, **kwargs):\n"
    "    return True\n"
    "torch.allclose = _yes\n"
    "torch.equal = _yes\n"
    "try:\n"
    "    import hone_worker.compare as c\n"
    "    c.compare_outputs = lambda *a, **k: c.Comparison(0.0, 0.0, None)\n"
    "    c._compare_one = lambda *a, **k: c.Comparison(0.0, 0.0, None)\n"
    "except ImportError:\n"
    "    pass\n";

// A 12-byte jump written over the start of a function (x86-64: movabs rax, target; jmp rax);
// the original bytes go back around each call of the original (the processes here call it from
// one thread at a time).
struct Hotpatch {
  unsigned char* at = nullptr;
  unsigned char original[12] = {};
  unsigned char jump[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};

  bool install(void* function, void* replacement) {
    if (!function) return false;
    at = static_cast<unsigned char*>(function);
    const long page = sysconf(_SC_PAGESIZE);
    auto start = reinterpret_cast<std::uintptr_t>(at) & ~static_cast<std::uintptr_t>(page - 1);
    if (mprotect(reinterpret_cast<void*>(start), 2 * static_cast<size_t>(page), PROT_READ | PROT_WRITE | PROT_EXEC))
      return false;
    std::memcpy(original, at, sizeof original);
    const auto target = reinterpret_cast<std::uint64_t>(replacement);
    std::memcpy(jump + 2, &target, sizeof target);
    hook();
    return true;
  }
  void hook() { std::memcpy(at, jump, sizeof jump); }
  void unhook() { std::memcpy(at, original, sizeof original); }
};

inline constexpr long long kSlowdown = 50;
inline Hotpatch g_clock_patch;
inline long long g_clock_base[16];

// clock_gettime with every clock running kSlowdown times slower from its first reading.
inline int slow_clock_gettime(clockid_t id, timespec* ts) {
  g_clock_patch.unhook();
  const int result = clock_gettime(id, ts);
  g_clock_patch.hook();
  if (result != 0 || id < 0 || id >= 16) return result;
  const long long now = ts->tv_sec * 1000000000LL + ts->tv_nsec;
  if (g_clock_base[id] == 0) g_clock_base[id] = now;
  const long long slowed = g_clock_base[id] + (now - g_clock_base[id]) / kSlowdown;
  ts->tv_sec = slowed / 1000000000LL;
  ts->tv_nsec = slowed % 1000000000LL;
  return result;
}

// Slows the host clock of this process (std::chrono's clocks, Python's time.perf_counter: all
// read libc's clock_gettime).
inline bool slow_the_host_clock() {
  return g_clock_patch.install(dlsym(RTLD_DEFAULT, "clock_gettime"), reinterpret_cast<void*>(&slow_clock_gettime));
}

// The event timers, reporting kSlowdown times less: the driver's cuEventElapsedTime_v2, which
// every runtime (libcudart.so, or the static runtime linked into hone-runner) calls in the end;
// its v1 entry is a stub too short for a 12-byte patch (patching both crashed on the H200), so
// v1 is taken only where there is no v2, and the runtime's cudaEventElapsedTime only where no
// driver is loaded.
inline Hotpatch g_event_patch;
using ElapsedFn = int (*)(float*, void*, void*);

inline int slow_elapsed(float* ms, void* start, void* end) {
  g_event_patch.unhook();
  const int result = reinterpret_cast<ElapsedFn>(g_event_patch.at)(ms, start, end);
  g_event_patch.hook();
  if (result == 0 && ms) *ms /= static_cast<float>(kSlowdown);
  return result;
}

inline bool slow_the_event_timers() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void* target = driver ? dlsym(driver, "cuEventElapsedTime_v2") : nullptr;
  const char* which = "cuEventElapsedTime_v2";
  if (!target && driver) {
    target = dlsym(driver, "cuEventElapsedTime");
    which = "cuEventElapsedTime";
  }
  if (!target) {
    void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (!runtime) runtime = dlopen("libcudart.so.12", RTLD_NOW | RTLD_NOLOAD);
    target = runtime ? dlsym(runtime, "cudaEventElapsedTime") : dlsym(RTLD_DEFAULT, "cudaEventElapsedTime");
    which = "cudaEventElapsedTime";
  }
  const bool done = target && g_event_patch.install(target, reinterpret_cast<void*>(&slow_elapsed));
  std::fprintf(stderr, "tamper: event timer %s %s\n", which, done ? "slowed" : "not found");
  return done;
}

// Writes a file; false when it cannot.
inline bool plant(const char* path, const char* text) {
  FILE* f = std::fopen(path, "w");
  if (!f) return false;
  std::fputs(text, f);
  return std::fclose(f) == 0;
}

// What a later process started in this working folder would pick up if nobody cleared it: a
// `hone_worker` package that shadows hone's (`python -m` puts the working folder first on
// sys.path), which runs the real runner but computes relu itself in every raw or torch call,
// so that a wrong kernel checked next would look right.
inline bool plant_shadow_runner() {
  if (mkdir("hone_worker", 0755) != 0) return false;
  return plant("hone_worker/__init__.py",
               "import os, sys\n"
               "here = os.path.dirname(os.path.abspath(__file__))\n"
               "for entry in sys.path:\n"
               "    real = os.path.join(os.path.abspath(entry or '.'), 'hone_worker')\n"
               "    if real != here and os.path.isfile(os.path.join(real, '__init__.py')):\n"
               "        __path__.insert(0, real)\n"
               "        break\n"
               "sys.stderr.write('tamper: a planted hone_worker package runs in pid %d\\n' % os.getpid())\n"
               "import torch\n"
               "def _relu_everything(bind):\n"
               "    def bound(self, args, outputs):\n"
               "        def call():\n"
               "            result = torch.relu(args[0])\n"
               "            for out in outputs[:1]:\n"
               "                out.copy_(result)\n"
               "            return result\n"
               "        return call\n"
               "    return bound\n"
               "try:\n"
               "    from hone_worker.runner import raw_form, torch_form\n"
               "    raw_form.RawCandidate.bind = _relu_everything(raw_form.RawCandidate.bind)\n"
               "    torch_form.TorchCandidate.bind = _relu_everything(torch_form.TorchCandidate.bind)\n"
               "except Exception:\n"
               "    pass\n");
}

inline void say(const char* what, bool done) {
  std::fprintf(stderr, "tamper: %s: %s (pid %d)\n", what, done ? "done" : "not possible in this process",
               static_cast<int>(getpid()));
}

}  // namespace tamper
