// cupti/kernel_prologue.h: a function run on the launching thread before each kernel launch of
// the process, while armed: CUPTI's runtime and driver launch callbacks, at the entry of the
// outermost launch call (a runtime launch that enters the driver is one launch; the function's
// own launches are none). hone's counted calls arm it with hone_flush (runner/harness.h), so each
// kernel of a call starts from a flushed cache, as ncu's cache control flushes before each kernel.
#pragma once

#include <cupti_callbacks.h>

#include <atomic>
#include <cstdint>

#include <nlohmann/json_fwd.hpp>

namespace hone::cupti {

// The prologue: stream is the launch's CUstream (NULL: the legacy default stream; the per-thread
// stream for a per-thread launch on stream 0); returns 0, or an error code it counts as a failure.
using PrologueFn = int (*)(void* stream, void* user);

class KernelPrologue {
 public:
  // Subscribes to CUPTI's callbacks and enables the launch callbacks (disarmed: they return at
  // once); throws CuptiFailure ("multiple_subscribers" where another tool holds CUPTI's one).
  KernelPrologue();
  // Disables the callbacks and unsubscribes.
  ~KernelPrologue();
  KernelPrologue(const KernelPrologue&) = delete;
  KernelPrologue& operator=(const KernelPrologue&) = delete;

  // From now on fn(stream, user) runs before each launch; disarm() stops it.
  void arm(PrologueFn fn, void* user);
  void disarm();

  // {"launches": launches seen while armed, "failures": prologues that returned non-zero,
  //  "first_failure": the first one's code (0: none), "graphs": graph launches among them (one
  //  prologue for all of a graph's kernels), "missed": launches it could not precede (a <<<>>>
  //  launch, __cudaLaunchKernel, whose stream it cannot read, and whose driver launch CUPTI did
  //  not report)}.
  nlohmann::json summary() const;

  // The callback (public for CUPTI's C signature): counts the launch and runs the prologue.
  void on_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);

 private:
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::atomic<PrologueFn> fn_{nullptr};
  std::atomic<void*> user_{nullptr};
  std::atomic<std::uint64_t> launches_{0}, failures_{0}, graphs_{0}, missed_{0};
  std::atomic<int> first_failure_{0};
  std::uint64_t generation_ = 0;  // per object: a thread's nesting depth from another object is stale
};

}  // namespace hone::cupti
