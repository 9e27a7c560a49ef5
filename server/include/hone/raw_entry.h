// hone/raw_entry.h: appended by hone after a raw-form kernel's source. It reads forward's
// parameter list at compile time and exports a C entry point that the eval worker calls:
//   hone_abi_version()      -> 1
//   hone_raw_signature()    -> e.g. "in:float32,in:float32,out:float32,stream"
//   hone_raw_forward(args, nargs, stream, err, errlen) -> 0 ok, 1 contract error or exception,
//                                                       2 CUDA launch error (text in err)
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "hone.h"

namespace hone::detail {

template <class T>
struct raw_param;

template <class T>
struct raw_param<In<T>> {
  static constexpr bool consumes_arg = true;
  static std::string describe() { return std::string("in:") + dtype_name(dtype_of<std::remove_cv_t<T>>::value); }
  static In<T> make(const ArgDesc& d, int index) {
    check_tensor(d, index, dtype_of<std::remove_cv_t<T>>::value, "input");
    return In<T>(d);
  }
  static void check_tensor(const ArgDesc& d, int index, DType want, const char* role) {
    if (d.kind != static_cast<int32_t>(ArgKind::Tensor))
      throw Error("argument " + std::to_string(index) + ": forward takes a tensor " + role + " here, the task passes a scalar");
    if (d.dtype != static_cast<int32_t>(want))
      throw Error("argument " + std::to_string(index) + ": forward takes " + dtype_name(want) + ", the task passes " +
                  dtype_name(static_cast<DType>(d.dtype)));
  }
};

template <class T>
struct raw_param<Out<T>> {
  static constexpr bool consumes_arg = true;
  static std::string describe() { return std::string("out:") + dtype_name(dtype_of<T>::value); }
  static Out<T> make(const ArgDesc& d, int index) {
    raw_param<In<T>>::check_tensor(d, index, dtype_of<T>::value, "output");
    return Out<T>(d);
  }
};

template <>
struct raw_param<Stream> {
  static constexpr bool consumes_arg = false;
  static std::string describe() { return "stream"; }
};

template <class S, ArgKind K, const char* Name>
struct raw_scalar {
  static constexpr bool consumes_arg = true;
  static std::string describe() { return std::string("scalar:") + Name; }
  static S make(const ArgDesc& d, int index) {
    if (d.kind == static_cast<int32_t>(ArgKind::Tensor))
      throw Error("argument " + std::to_string(index) + ": forward takes a scalar (" + Name + ") here, the task passes a tensor");
    switch (static_cast<ArgKind>(d.kind)) {
      case ArgKind::Int: return static_cast<S>(*static_cast<const int64_t*>(d.data));
      case ArgKind::Float: return static_cast<S>(*static_cast<const double*>(d.data));
      case ArgKind::Bool: return static_cast<S>(*static_cast<const uint8_t*>(d.data) != 0);
      default: throw Error("argument " + std::to_string(index) + ": unknown argument kind");
    }
  }
};

inline constexpr char kIntName[] = "int";
inline constexpr char kFloatName[] = "float";
inline constexpr char kBoolName[] = "bool";
template <>
struct raw_param<int64_t> : raw_scalar<int64_t, ArgKind::Int, kIntName> {};
template <>
struct raw_param<int32_t> : raw_scalar<int32_t, ArgKind::Int, kIntName> {};
template <>
struct raw_param<double> : raw_scalar<double, ArgKind::Float, kFloatName> {};
template <>
struct raw_param<float> : raw_scalar<float, ArgKind::Float, kFloatName> {};
template <>
struct raw_param<bool> : raw_scalar<bool, ArgKind::Bool, kBoolName> {};

template <class F>
struct raw_signature;

template <class... A>
struct raw_signature<void (*)(A...)> {
  template <class P>
  using param = raw_param<std::remove_cv_t<std::remove_reference_t<P>>>;

  static constexpr int arg_count = (0 + ... + (param<A>::consumes_arg ? 1 : 0));

  static std::string describe() {
    std::string s;
    ((s += (s.empty() ? "" : ","), s += param<A>::describe()), ...);
    return s;
  }

  template <class P>
  static auto make_one(const ArgDesc* args, int& next, void* stream) {
    using Q = std::remove_cv_t<std::remove_reference_t<P>>;
    if constexpr (std::is_same_v<Q, Stream>) {
      return Stream{stream};
    } else {
      int i = next++;
      return param<P>::make(args[i], i);
    }
  }

  static void call(void (*fn)(A...), const ArgDesc* args, void* stream) {
    int next = 0;
    // Braced initialisation evaluates the arguments left to right.
    std::tuple<std::remove_cv_t<std::remove_reference_t<A>>...> values{make_one<A>(args, next, stream)...};
    std::apply(fn, values);
  }
};

template <class R, class... A>
struct raw_signature<R (*)(A...)> {
  static_assert(std::is_void_v<R>, "hone raw form: forward must return void and write its Out<T> parameters");
};

inline void copy_message(char* err, int32_t errlen, const std::string& msg) {
  if (err == nullptr || errlen <= 0) return;
  std::snprintf(err, static_cast<size_t>(errlen), "%s", msg.c_str());
}

}  // namespace hone::detail

using hone_forward_signature = hone::detail::raw_signature<decltype(&forward)>;

extern "C" __attribute__((visibility("default"))) int32_t hone_abi_version() { return 1; }

extern "C" __attribute__((visibility("default"))) const char* hone_raw_signature() {
  static const std::string s = hone_forward_signature::describe();
  return s.c_str();
}

extern "C" __attribute__((visibility("default"))) int32_t hone_raw_forward(const hone::ArgDesc* args, int32_t nargs,
                                                                         void* stream, char* err, int32_t errlen) {
  if (nargs != hone_forward_signature::arg_count) {
    hone::detail::copy_message(err, errlen,
                               "forward takes " + std::to_string(hone_forward_signature::arg_count) +
                                   " arguments (" + hone_forward_signature::describe() + "), the harness passes " +
                                   std::to_string(nargs));
    return 1;
  }
  try {
    hone_forward_signature::call(&forward, args, stream);
  } catch (const std::exception& e) {
    hone::detail::copy_message(err, errlen, e.what());
    return 1;
  } catch (...) {
    hone::detail::copy_message(err, errlen, "forward threw a non-standard exception");
    return 1;
  }
#if defined(__CUDACC__)
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    hone::detail::copy_message(err, errlen,
                               std::string(cudaGetErrorName(launch)) + ": " + cudaGetErrorString(launch));
    return 2;
  }
#endif
  return 0;
}
