// runner/kernel.h: the one candidate a runner process loads: a raw-form library (dlopen
// RTLD_NOW|RTLD_LOCAL, hone_abi_version() == 1, hone_raw_signature(), hone_raw_forward()), or
// the null form (no code: forward does nothing). Owned by the Runner; forward() is the hot path
// of the timed loops (main thread).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "hone.h"

namespace hone::runner {

class Kernel {
 public:
  // The null form.
  Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Loads a raw-form library; throws OpError (load_error) saying why it is not a hone kernel.
  void load_raw(const std::string& path);

  bool is_null() const { return forward_ == nullptr; }
  // hone_raw_signature() ("" for the null form).
  const std::string& declared() const { return declared_; }

  // hone_raw_forward: 0 ok, 1 forward threw / contract error, 2 CUDA launch error; message()
  // holds its text after a non-zero code. The null form returns 0 and does nothing.
  int forward(const hone::ArgDesc* args, int count, void* stream) {
    if (!forward_) return 0;
    error_[0] = '\0';
    return forward_(args, count, stream, error_, kErrorBytes);
  }
  std::string message() const { return std::string(error_, strnlen(error_, kErrorBytes)); }

 private:
  using Forward = std::int32_t (*)(const hone::ArgDesc*, std::int32_t, void*, char*, std::int32_t);
  static constexpr int kErrorBytes = 4096;

  void* handle_ = nullptr;
  Forward forward_ = nullptr;
  std::string declared_;
  char error_[kErrorBytes] = {};
};

}  // namespace hone::runner
