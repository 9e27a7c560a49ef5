// hone: task=../../../tasks/matmul.py
// Cheat (work after the call, CPU): honest while the argument buffers keep changing address or
// come back seldom (the correctness trials); once the same buffers come back a twelfth time (a
// timing loop), forward hands A @ B to a thread of its own and returns at once, so a timed call is a
// hand-off and the product lands in the output while the runner copies the next call's inputs and
// flushes the cache (the next call waits for it). The judge verifies timed calls (spot checks) and
// overwrites such a call's arguments as soon as forward returns: the thread computes from the
// overwritten inputs, or has not written the output when the judge reads it.
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "hone.h"
#include "matmul_loop.h"

namespace {

struct Job {
  const float *a = nullptr, *b = nullptr;
  float* c = nullptr;
  int64_t m = 0, k = 0, n = 0;
};

std::mutex g_lock;
std::condition_variable g_changed;
Job g_job;
bool g_pending = false;

void work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> hold(g_lock);
      g_changed.wait(hold, [] { return g_pending; });
      job = g_job;
    }
    multiply(job.a, job.b, job.c, job.m, job.k, job.n);
    std::lock_guard<std::mutex> hold(g_lock);
    g_pending = false;
    g_changed.notify_all();
  }
}

}  // namespace

void forward(hone::In<float> A, hone::In<float> B, hone::Out<float> out, hone::Stream) {
  static const float* last_a = nullptr;
  static int repeats = 0;
  static bool started = false;
  repeats = A.data() == last_a ? repeats + 1 : 0;
  last_a = A.data();
  const Job job{A.data(), B.data(), out.data(), A.size(0), A.size(1), B.size(1)};
  std::unique_lock<std::mutex> hold(g_lock);
  g_changed.wait(hold, [] { return !g_pending; });  // the previous call's product is in place
  if (repeats < 12) {
    hold.unlock();
    multiply(job.a, job.b, job.c, job.m, job.k, job.n);
    return;
  }
  if (!started) std::thread(work).detach(), started = true;
  g_job = job;
  g_pending = true;
  g_changed.notify_all();
}
