// runner/backend_cuda.cpp: the CUDA device: the primary context of cuda:N, copies and events on
// the legacy default stream, hone's flush/hold/spin/marker kernels from libhone_harness, VMM
// import and registered host memory.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "runner/backend.h"
#include "runner/harness.h"
#include "runner/vmm_import.h"
#include "runner/wire.h"

namespace hone::runner {
namespace {

constexpr std::size_t kMaxPitch = std::size_t{1} << 30;

// Whether the context still works after a failed call: a sticky error fails every later call
// (a query, not a synchronize: the stream may be held).
bool context_broken() {
  (void)cudaGetLastError();
  const cudaError_t e = cudaStreamQuery(nullptr);
  return e != cudaSuccess && e != cudaErrorNotReady;
}

[[noreturn]] void fail(cudaError_t e, const std::string& what) {
  const std::string name = cudaGetErrorName(e);
  throw CudaFailure(what + ": " + name + ": " + cudaGetErrorString(e), name, context_broken());
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(e, what);
}

void check_harness(int code, const char* what) {
  if (code != 0) fail(static_cast<cudaError_t>(code), what);
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int index) : index_(index) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("--device cuda:") + std::to_string(index) + ": no CUDA device (" +
                               cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")");
    if (index >= count)
      throw std::runtime_error("--device cuda:" + std::to_string(index) + ": only " + std::to_string(count) +
                               " CUDA device(s) visible");
    e = cudaSetDevice(index);
    if (e == cudaSuccess) e = cudaFree(nullptr);
    if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&words_), 3 * sizeof(unsigned));
    if (e == cudaSuccess) e = cudaMemset(words_, 0, 3 * sizeof(unsigned));
    if (e != cudaSuccess)
      throw std::runtime_error("--device cuda:" + std::to_string(index) + ": cannot make a CUDA context (" +
                               cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")");
  }

  std::string device() const override { return "cuda:" + std::to_string(index_); }
  bool is_cuda() const override { return true; }

  std::unique_ptr<ImportedMemory> import_vmm(int fd, std::size_t bytes) override {
    return import_vmm_fd(fd, bytes, index_);
  }
  void* register_host(void* host, std::size_t bytes) override {
    void* device = nullptr;
    if (hone_harness_register(host, bytes, &device) != 0) {
      char text[256];
      hone_harness_last_error(text, sizeof text);
      throw OpError(ErrorKind::Internal, std::string("map: cudaHostRegister of a host arena failed: ") + text);
    }
    return device;
  }
  void unregister_host(void* host) override { hone_harness_unregister(host); }

  void synchronize() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, nullptr), "cudaMemcpyAsync");
  }
  void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t width,
                 std::size_t rows) override {
    if (rows == 1) return copy(dst, src, width);
    if (dst_pitch < kMaxPitch && src_pitch < kMaxPitch) {
      check(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyDefault, nullptr),
            "cudaMemcpy2DAsync");
      return;
    }
    for (std::size_t r = 0; r < rows; ++r)
      copy(static_cast<char*>(dst) + r * dst_pitch, static_cast<const char*>(src) + r * src_pitch, width);
  }
  void mix(void* dst, const void* const* sets, int n_sets, std::size_t elem_bytes, std::size_t count,
           unsigned seed) override {
    check_harness(hone_harness_mix(nullptr, dst, sets, n_sets, elem_bytes, count, seed), "hone_mix");
  }
  void reserve_flush(std::size_t bytes) override {
    if (flush_bytes_ >= bytes) return;
    if (flush_) check(cudaFree(flush_), "cudaFree (flush buffer)");
    flush_ = nullptr;
    flush_bytes_ = 0;
    check(cudaMalloc(&flush_, bytes), "cudaMalloc (flush buffer)");
    check(cudaMemset(flush_, 1, bytes), "cudaMemset (flush buffer)");
    flush_bytes_ = bytes;
  }
  bool evict(const void*, std::size_t) override { return false; }
  void flush(std::size_t bytes, bool evict_code) override {
    if (bytes == 0) return;
    reserve_flush(bytes);
    if (evict_code)
      check_harness(hone_harness_flush(nullptr, flush_, bytes, words_ + kSink), "hone_flush");
    else
      check_harness(hone_harness_flush_l2(nullptr, flush_, bytes, words_ + kSink), "hone_flush_l2");
  }

  hone_harness_flush_args flush_args(std::size_t bytes) override {
    reserve_flush(bytes);
    return {flush_, bytes, words_ + kSink};
  }

  void reserve_marks(std::size_t count) override {
    while (events_.size() < count) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
  }
  void mark(std::size_t i) override { check(cudaEventRecord(events_[i], nullptr), "cudaEventRecord"); }
  void wait_mark(std::size_t i) override { check(cudaEventSynchronize(events_[i]), "cudaEventSynchronize"); }
  double elapsed_us(std::size_t from, std::size_t to) override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, events_[from], events_[to]), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1000.0;
  }

  void hold(const void* release, double timeout_ms) override {
    check(cudaMemsetAsync(words_ + kTimedOut, 0, sizeof(unsigned), nullptr), "cudaMemsetAsync");
    const double ns = timeout_ms > 0 ? timeout_ms * 1e6 : 0;
    check_harness(hone_harness_hold(nullptr, release, static_cast<unsigned long long>(ns), words_ + kTimedOut),
                  "hone_hold");
  }
  bool hold_timed_out() override {
    unsigned v = 0;
    check(cudaMemcpy(&v, words_ + kTimedOut, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return v != 0;
  }
  void spin(double us) override {
    check_harness(hone_harness_spin(nullptr, static_cast<unsigned long long>(us > 0 ? us * 1000 : 0)), "hone_spin");
  }
  void marker() override { check_harness(hone_harness_marker(nullptr, words_ + kMarker), "hone_marker"); }

 private:
  static constexpr int kSink = 0, kTimedOut = 1, kMarker = 2;  // words_[...]

  int index_;
  unsigned* words_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  std::vector<cudaEvent_t> events_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int index) { return std::make_unique<CudaBackend>(index); }

}  // namespace hone::runner
