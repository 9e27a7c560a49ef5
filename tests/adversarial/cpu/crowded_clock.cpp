// hone: task=../../../tasks/relu.py
// Tamperer: from its static constructor it makes its process's clocks run 50 times slower (as
// slow_clock.cpp) and starts 63 worker threads; each call's work (the ReLU 200 times over) is
// done by the workers while the calling thread yields to them. The calling thread is runnable
// all the while but waits for a CPU, its own process's threads keeping it waiting: a judge that
// subtracted every such wait as the machine's load would see almost nothing of the call, and
// believe the slowed clock. The judge subtracts a wait only while none of the candidate's
// threads ran.
#include <sched.h>

#include <atomic>
#include <thread>

#include "hone.h"
#include "tamper.h"

namespace {
constexpr int kWorkers = 63, kPasses = 200;
std::atomic<int> g_generation{0}, g_done{0};
std::atomic<const float*> g_in{nullptr};
std::atomic<float*> g_out{nullptr};
std::atomic<int64_t> g_n{0};

void work(int w) {
  for (int seen = 0;; ++seen) {
    while (g_generation.load() == seen) sched_yield();
    const int64_t n = g_n.load(), begin = n * w / kWorkers, end = n * (w + 1) / kWorkers;
    const volatile float* in = g_in.load();
    volatile float* out = g_out.load();
    for (int pass = 0; pass < kPasses; ++pass)
      for (int64_t i = begin; i < end; ++i) out[i] = in[i] > 0.f ? in[i] : 0.f;
    g_done.fetch_add(1);
  }
}
}  // namespace

__attribute__((constructor)) static void tamper_at_load() {
  tamper::say("slowing the host clock 50 times", tamper::slow_the_host_clock());
  for (int w = 0; w < kWorkers; ++w) std::thread(work, w).detach();
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  g_in.store(x.data());
  g_out.store(out.data());
  g_n.store(x.numel());
  g_done.store(0);
  g_generation.fetch_add(1);
  while (g_done.load() < kWorkers) sched_yield();  // runnable throughout, behind its workers
}
