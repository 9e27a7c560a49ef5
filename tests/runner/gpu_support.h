// tests/runner/gpu_support.h: the judge's side of CUDA memory for hone-runner's GPU tests: a VMM
// allocation exported as a POSIX fd (cuMemCreate, cuMemExportToShareableHandle) and mapped in
// the test process too, through driver entry points from the CUDA runtime. Test thread only.
#pragma once

#include <cstddef>
#include <vector>

namespace hone::runner_test {

// Visible CUDA devices (0 without a driver or GPU).
int gpu_count();

class VmmBuffer {
 public:
  explicit VmmBuffer(std::size_t bytes);  // throws std::runtime_error naming the failed call
  ~VmmBuffer();
  VmmBuffer(const VmmBuffer&) = delete;
  VmmBuffer& operator=(const VmmBuffer&) = delete;
  int fd() const { return fd_; }           // the exported handle (the test keeps it)
  std::size_t bytes() const { return size_; }
  void write(std::size_t offset, const std::vector<float>& values);
  std::vector<float> read(std::size_t offset, std::size_t count) const;

 private:
  unsigned long long handle_ = 0;
  unsigned long long address_ = 0;
  std::size_t size_ = 0;
  int fd_ = -1;
};

}  // namespace hone::runner_test
