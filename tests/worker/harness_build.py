"""libhone_harness.so for the runner's tests: $HONE_HARNESS_LIBRARY (set by tests/worker/CMakeLists.txt
to the hone_harness target, and by scripts/gpu/pyrunner.sh), else a CPU-only stand-in built here
with g++ against server/runner/harness.h's ABI (host flush; the CUDA functions report
cudaErrorNotSupported), so the CPU suites run in a tree without the native runner."""
import os
import subprocess
from pathlib import Path

CACHE = Path(os.environ.get("HONE_TEST_CACHE", "/tmp/hone-worker-tests"))

_CPU_ONLY = r"""
#include <stddef.h>
#include <stdio.h>
#define API __attribute__((visibility("default")))
static int last_error;
static int unsupported(void) { last_error = 801; return 801; }
API int hone_harness_version(void) { return 1; }
API int hone_harness_has_cuda(void) { return 0; }
API int hone_harness_flush(void* s, const void* b, size_t n, void* k) { return unsupported(); }
API int hone_harness_hold(void* s, const void* r, unsigned long long t, void* o) { return unsupported(); }
API int hone_harness_spin(void* s, unsigned long long ns) { return unsupported(); }
API int hone_harness_marker(void* s, void* w) { return unsupported(); }
API int hone_harness_register(void* h, size_t n, void** d) { *d = NULL; return unsupported(); }
API int hone_harness_unregister(void* h) { return unsupported(); }
API int hone_harness_last_error(char* text, int len) {
  if (text && len > 0) snprintf(text, (size_t)len, "%s", last_error ? "cudaErrorNotSupported: CPU-only build" : "");
  return last_error;
}
API void hone_harness_host_flush(const void* buffer, size_t bytes) {
  static volatile unsigned long long sink;
  const unsigned char* p = (const unsigned char*)buffer;
  unsigned long long sum = 0;
  for (size_t at = 0; at < bytes; at += 64) sum += p[at];
  sink = sink + sum;
}
"""


def harness_library() -> str:
    configured = os.environ.get("HONE_HARNESS_LIBRARY")
    if configured:
        return configured
    library = CACHE / "harness-cpu" / "libhone_harness.so"
    if not library.exists():
        library.parent.mkdir(parents=True, exist_ok=True)
        source = library.with_name("harness_cpu.c")
        source.write_text(_CPU_ONLY)
        partial = library.with_suffix(".partial")
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", str(source), "-o", str(partial)],
                       check=True, capture_output=True, text=True)
        os.replace(partial, library)
    return str(library)
