// runner/backend.h: the device a runner executes on, as the ops need it: memory it maps, copies
// and flushes on the legacy default stream, a pool of timing marks (CUDA events, or the host's
// steady clock), and hone's hold/spin/marker kernels. One per process, made by make_backend
// from --device; used from the main thread only.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "harness.h"

namespace hone::runner {

// A CUDA call that failed. `sticky`: the context is broken (every later call fails too).
struct CudaFailure : std::runtime_error {
  CudaFailure(const std::string& message, std::string name, bool sticky)
      : std::runtime_error(message), name(std::move(name)), sticky(sticky) {}
  std::string name;  // "cudaErrorIllegalAddress"
  bool sticky;
};

// Device memory another process exported (a CUDA VMM allocation), mapped here read-write.
class ImportedMemory {
 public:
  virtual ~ImportedMemory() = default;
  virtual void* address() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string device() const = 0;  // "cpu", "cuda:0"
  virtual bool is_cuda() const = 0;
  virtual void* stream() const { return nullptr; }  // what forward gets: the legacy default stream

  // Maps a CUDA VMM allocation exported as a POSIX fd (`bytes` rounded up to its granularity).
  virtual std::unique_ptr<ImportedMemory> import_vmm(int fd, std::size_t bytes) = 0;
  // Registers host memory for kernels (mapped); returns the address kernels use. CPU: `host`.
  virtual void* register_host(void* host, std::size_t bytes) = 0;
  virtual void unregister_host(void* host) = 0;

  // Waits for all work of the device; throws CudaFailure.
  virtual void synchronize() = 0;
  // Copies on the legacy default stream (CPU: now). copy_rows copies `rows` runs of `width`
  // bytes, the runs `dst_pitch` / `src_pitch` bytes apart.
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t width,
                         std::size_t rows) = 0;
  // A timed call's fresh input (hone_harness_mix, CPU: hone_harness_host_mix): each of `count`
  // elements of `elem_bytes` bytes from the set its hash of `seed` chooses, on the legacy stream.
  virtual void mix(void* dst, const void* const* sets, int n_sets, std::size_t elem_bytes, std::size_t count,
                   unsigned seed) = 0;
  // The cache flush before a timed call: hone_flush over a `bytes` device buffer (CPU: a read
  // pass over a host buffer); `evict_code` false: hone_flush_l2, the read alone, which leaves the
  // SMs' instruction caches (a call-time pass, as plain events flush). reserve_flush allocates
  // the buffer (it may synchronise the device, so never while the stream is held); flush reserves
  // what it lacks first.
  virtual void reserve_flush(std::size_t bytes) = 0;
  // CPU: writes back and evicts [p, p + bytes) from the host's caches (hone_harness_host_evict);
  // false where this CPU cannot. CUDA: false, nothing done (there the flush after a call's input
  // copies evicts them, and work of the candidate's beside the loop needs a stream other than the
  // caller's, whose activity records the judge rejects: kernel_records.off_caller_stream).
  virtual bool evict(const void* p, std::size_t bytes) = 0;
  virtual void flush(std::size_t bytes, bool evict_code) = 0;
  // What hone_harness_flush_prologue needs to flush `bytes` before each kernel of a counted call
  // (the buffer reserved now). CUDA only: the CPU backend throws OpError unsupported.
  virtual hone_harness_flush_args flush_args(std::size_t bytes) = 0;

  // Timing marks 0..count-1 (reserve_marks first): mark(i) records mark i (a CUDA event on the
  // legacy stream, or the steady clock now); elapsed_us(a, b) after synchronize(); wait_mark(i)
  // waits until mark i has been reached (CUDA: cudaEventSynchronize; CPU: nothing).
  virtual void reserve_marks(std::size_t count) = 0;
  virtual void mark(std::size_t i) = 0;
  virtual void wait_mark(std::size_t i) = 0;
  virtual double elapsed_us(std::size_t from, std::size_t to) = 0;

  // CUDA only (the CPU backend throws OpError unsupported): hone_hold on the legacy stream,
  // released by the 32-bit word at `release` (a device address of registered host memory);
  // hold_timed_out() after synchronize(). hone_spin for `us`; hone_marker after a records call.
  virtual void hold(const void* release, double timeout_ms) = 0;
  virtual bool hold_timed_out() = 0;
  virtual void spin(double us) = 0;
  virtual void marker() = 0;
};

// "cpu" or "cuda:N" (N an index among the visible devices). CUDA: makes the context. Throws
// std::runtime_error with the reason when the device cannot be used.
std::unique_ptr<Backend> make_backend(const std::string& device);
// "cpu" and "cuda:N" (throws std::invalid_argument otherwise); the index for CUDA, -1 for the CPU.
int parse_device(const std::string& device);

}  // namespace hone::runner
