// hone.h: the raw-form kernel contract. A raw-form kernel includes only this header and defines
//   void forward(hone::In<float> x, ..., hone::Out<float> out, ..., hone::Stream stream);
// Parameters, in order: the reference's forward inputs (tensors as In<T>, Python scalars as
// int64_t / double / bool), then the Model's state_dict() tensors as In<T>, then one Out<T> per
// output of the reference (allocated, poisoned and checked by the harness), then optionally a
// hone::Stream to launch on. No torch headers are needed, so it builds in seconds.
#pragma once

#include <cstddef>
#include <cstdint>
// hone defines HONE_LEAN_STD when the kernel never names the standard library: <string> and
// <stdexcept> are a quarter of a small kernel's compile. (Rebuilt without it should that fail.)
#if defined(HONE_LEAN_STD)
#include <cstdio>
#include <exception>
#else
#include <stdexcept>
#include <string>
#endif

#if defined(__CUDACC__)
#include <cuda_runtime.h>
// hone defines HONE_NO_FP16_HEADERS when the kernel never names half or bfloat16 types: their
// headers are a third of a small kernel's compile. Declared, the types still name dtypes below.
#if defined(HONE_NO_FP16_HEADERS)
struct __half;
struct __nv_bfloat16;
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
#endif

namespace hone {

// Throw from forward to report a contract violation with a readable message.
#if defined(HONE_LEAN_STD)
struct Error : std::exception {
  explicit Error(const char* message) noexcept { std::snprintf(text_, sizeof text_, "%s", message ? message : ""); }
  const char* what() const noexcept override { return text_; }

 private:
  char text_[512];
};
#else
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
#endif

// Element types, numbered as the eval worker numbers them (keep in step with hone_worker/abi.py).
enum class DType : int32_t {
  Float32 = 0,
  Float16 = 1,
  BFloat16 = 2,
  Float64 = 3,
  Int32 = 4,
  Int64 = 5,
  Int16 = 6,
  Int8 = 7,
  UInt8 = 8,
  Bool = 9,
};

// Argument kinds in ArgDesc::kind.
enum class ArgKind : int32_t { Tensor = 0, Int = 1, Float = 2, Bool = 3 };

inline constexpr int kMaxDims = 8;

// One argument as the harness passes it (C layout, mirrored by the worker with ctypes).
// Tensors: data is a device pointer (host pointer on the CPU device), strides in elements.
// Scalars: data points at an int64_t, a double or a uint8_t (bool) on the host.
struct ArgDesc {
  void* data;
  int32_t kind;
  int32_t dtype;
  int32_t ndim;
  int32_t reserved;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
};

// 16-bit float storage types for code that has no CUDA headers (the CPU device).
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};
template <>
struct dtype_of<f16> {
  static constexpr DType value = DType::Float16;
};
template <>
struct dtype_of<bf16> {
  static constexpr DType value = DType::BFloat16;
};
#if defined(__CUDACC__)
template <>
struct dtype_of<__half> {
  static constexpr DType value = DType::Float16;
};
template <>
struct dtype_of<__nv_bfloat16> {
  static constexpr DType value = DType::BFloat16;
};
#endif

inline const char* dtype_name(DType d) {
  switch (d) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float64: return "float64";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Int16: return "int16";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Bool: return "bool";
  }
  return "unknown";
}

// A view of one tensor: shape, strides (in elements) and a typed pointer.
template <class T>
class View {
 public:
  explicit View(const ArgDesc& d) : d_(d) {}
  T* data() const { return static_cast<T*>(d_.data); }
  int dim() const { return d_.ndim; }
  int64_t size(int i) const { return d_.sizes[wrap(i)]; }
  int64_t stride(int i) const { return d_.strides[wrap(i)]; }
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < d_.ndim; ++i) n *= d_.sizes[i];
    return n;
  }
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int i = d_.ndim - 1; i >= 0; --i) {
      if (d_.sizes[i] != 1 && d_.strides[i] != expected) return false;
      expected *= d_.sizes[i];
    }
    return true;
  }

 private:
  int wrap(int i) const {
    int j = i < 0 ? i + d_.ndim : i;
#if defined(HONE_LEAN_STD)
    if (j < 0 || j >= d_.ndim) {
      char message[64];
      std::snprintf(message, sizeof message, "hone: dimension %d out of range", i);
      throw Error(message);
    }
#else
    if (j < 0 || j >= d_.ndim) throw std::out_of_range("hone: dimension " + std::to_string(i) + " out of range");
#endif
    return j;
  }
  ArgDesc d_;
};

// A read-only input (a forward input or a state_dict tensor).
template <class T>
class In : public View<const T> {
 public:
  using element_type = T;
  using View<const T>::View;
};

// An output buffer the harness allocated with the reference output's shape and dtype. Every
// element must be written: the harness fills it with NaN (or a sentinel) before each call.
template <class T>
class Out : public View<T> {
 public:
  using element_type = T;
  using View<T>::View;
};

// The stream to launch on (null on the CPU device). Launching anywhere else is rejected.
struct Stream {
  void* handle;
#if defined(__CUDACC__)
  operator cudaStream_t() const { return static_cast<cudaStream_t>(handle); }
#endif
};

}  // namespace hone
