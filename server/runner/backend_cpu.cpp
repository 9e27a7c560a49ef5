// runner/backend_cpu.cpp: the CPU device (host memory, memcpy, the host clock, a read pass over a
// host buffer as the cache flush), and make_backend, which picks the CPU or the CUDA backend.
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/backend.h"
#include "runner/harness.h"
#include "runner/wire.h"

namespace hone::runner {

#if defined(HONE_RUNNER_CUDA)
std::unique_ptr<Backend> make_cuda_backend(int index);
#endif

namespace {

using Clock = std::chrono::steady_clock;

class CpuBackend final : public Backend {
 public:
  std::string device() const override { return "cpu"; }
  bool is_cuda() const override { return false; }

  std::unique_ptr<ImportedMemory> import_vmm(int, std::size_t) override {
    throw OpError(ErrorKind::Unsupported, "map: a \"cuda\" arena needs a CUDA device; this runner runs on the CPU");
  }
  void* register_host(void* host, std::size_t) override { return host; }
  void unregister_host(void*) override {}

  void synchronize() override {}
  void copy(void* dst, const void* src, std::size_t bytes) override { std::memmove(dst, src, bytes); }
  void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t width,
                 std::size_t rows) override {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t r = 0; r < rows; ++r) std::memmove(d + r * dst_pitch, s + r * src_pitch, width);
  }
  void mix(void* dst, const void* const* sets, int n_sets, std::size_t elem_bytes, std::size_t count,
           unsigned seed) override {
    if (hone_harness_host_mix(dst, sets, n_sets, elem_bytes, count, seed) != 0)
      throw OpError(ErrorKind::BadRequest, "time: an input mix of " + std::to_string(n_sets) + " sets of " +
                                               std::to_string(elem_bytes) + "-byte elements cannot be made");
  }

  void reserve_flush(std::size_t bytes) override {
    if (flush_buffer_.size() < bytes) flush_buffer_.assign(bytes, 1);  // written once: every page is real
  }
  void flush(std::size_t bytes, bool /*evict_code: no code cache to evict here*/) override {
    if (bytes == 0) return;
    reserve_flush(bytes);
    hone_harness_host_flush(flush_buffer_.data(), bytes);
  }

  bool evict(const void* p, std::size_t bytes) override { return hone_harness_host_evict(p, bytes) == 0; }

  hone_harness_flush_args flush_args(std::size_t) override { unsupported("a flush before each kernel"); }

  void reserve_marks(std::size_t count) override {
    if (marks_.size() < count) marks_.resize(count);
  }
  void mark(std::size_t i) override { marks_[i] = Clock::now(); }
  void wait_mark(std::size_t) override {}
  double elapsed_us(std::size_t from, std::size_t to) override {
    return std::chrono::duration<double, std::micro>(marks_[to] - marks_[from]).count();
  }

  void hold(const void*, double) override { unsupported("a held stream (time mode \"device\")"); }
  bool hold_timed_out() override { return false; }
  void spin(double) override { unsupported("hone_spin"); }
  void marker() override { unsupported("hone_marker"); }

 private:
  [[noreturn]] static void unsupported(const std::string& what) {
    throw OpError(ErrorKind::Unsupported, what + " needs a CUDA device; this runner runs on the CPU");
  }

  std::vector<unsigned char> flush_buffer_;
  std::vector<Clock::time_point> marks_;
};

}  // namespace

int parse_device(const std::string& device) {
  if (device == "cpu") return -1;
  if (device.rfind("cuda:", 0) == 0 && device.size() > 5 && device.size() < 9 &&
      device.find_first_not_of("0123456789", 5) == std::string::npos)
    return std::stoi(device.substr(5));
  throw std::invalid_argument("--device " + device + ": expected cpu or cuda:N");
}

std::unique_ptr<Backend> make_backend(const std::string& device) {
  const int index = parse_device(device);
  if (index < 0) return std::make_unique<CpuBackend>();
#if defined(HONE_RUNNER_CUDA)
  return make_cuda_backend(index);
#else
  throw std::runtime_error("--device " + device + ": this hone-runner was built without CUDA (no CUDA toolkit was found)");
#endif
}

}  // namespace hone::runner
