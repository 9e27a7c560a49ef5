// hone/raw_entry.h: appended by hone after a raw-form kernel's source. It reads forward's
// parameter list at compile time and exports a C entry point that the candidate process (hone-runner) calls:
//   hone_abi_version()      -> 1
//   hone_raw_signature()    -> e.g. "in:float32,in:float32,out:float32,stream"
//   hone_raw_forward(args, nargs, stream, err, errlen) -> 0 ok, 1 contract error or exception,
//                                                       2 CUDA launch error (text in err)
#pragma once

#include <cstdio>
#include <exception>
#include <type_traits>

#include "hone.h"

namespace hone::detail {

// A bounded text buffer: the entry point's messages without <string> (see HONE_LEAN_STD).
struct Text {
  char s[1024] = {};
  int n = 0;
  Text& operator<<(const char* t) {
    while (t != nullptr && *t != 0 && n < static_cast<int>(sizeof s) - 1) s[n++] = *t++;
    return *this;
  }
  Text& operator<<(long long v) {
    char b[24];
    std::snprintf(b, sizeof b, "%lld", v);
    return *this << b;
  }
  Text& operator<<(int v) { return *this << static_cast<long long>(v); }
  const char* c_str() const { return s; }
};

template <class T>
struct raw_param;

template <class T>
struct raw_param<In<T>> {
  static constexpr bool consumes_arg = true;
  static void describe(Text& t) { t << "in:" << dtype_name(dtype_of<std::remove_cv_t<T>>::value); }
  static In<T> make(const ArgDesc& d, int index) {
    check_tensor(d, index, dtype_of<std::remove_cv_t<T>>::value, "input");
    return In<T>(d);
  }
  static void check_tensor(const ArgDesc& d, int index, DType want, const char* role) {
    if (d.kind != static_cast<int32_t>(ArgKind::Tensor))
      throw Error((Text() << "argument " << index << ": forward takes a tensor " << role
                          << " here, the task passes a scalar").c_str());
    if (d.dtype != static_cast<int32_t>(want))
      throw Error((Text() << "argument " << index << ": forward takes " << dtype_name(want) << ", the task passes "
                          << dtype_name(static_cast<DType>(d.dtype))).c_str());
  }
};

template <class T>
struct raw_param<Out<T>> {
  static constexpr bool consumes_arg = true;
  static void describe(Text& t) { t << "out:" << dtype_name(dtype_of<T>::value); }
  static Out<T> make(const ArgDesc& d, int index) {
    raw_param<In<T>>::check_tensor(d, index, dtype_of<T>::value, "output");
    return Out<T>(d);
  }
};

template <>
struct raw_param<Stream> {
  static constexpr bool consumes_arg = false;
  static void describe(Text& t) { t << "stream"; }
};

template <class S, ArgKind K, const char* Name>
struct raw_scalar {
  static constexpr bool consumes_arg = true;
  static void describe(Text& t) { t << "scalar:" << Name; }
  static S make(const ArgDesc& d, int index) {
    if (d.kind == static_cast<int32_t>(ArgKind::Tensor))
      throw Error((Text() << "argument " << index << ": forward takes a scalar (" << Name
                          << ") here, the task passes a tensor").c_str());
    switch (static_cast<ArgKind>(d.kind)) {
      case ArgKind::Int: return static_cast<S>(*static_cast<const int64_t*>(d.data));
      case ArgKind::Float: return static_cast<S>(*static_cast<const double*>(d.data));
      case ArgKind::Bool: return static_cast<S>(*static_cast<const uint8_t*>(d.data) != 0);
      default: throw Error((Text() << "argument " << index << ": unknown argument kind").c_str());
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

template <int I, class H, class... T>
struct type_at {
  using type = typename type_at<I - 1, T...>::type;
};
template <class H, class... T>
struct type_at<0, H, T...> {
  using type = H;
};

template <class F>
struct raw_signature;

template <class... A>
struct raw_signature<void (*)(A...)> {
  template <class P>
  using param = raw_param<std::remove_cv_t<std::remove_reference_t<P>>>;

  static constexpr int arg_count = (0 + ... + (param<A>::consumes_arg ? 1 : 0));

  static void describe(Text& t) {
    bool first = true;
    ((t << (first ? "" : ","), first = false, param<A>::describe(t)), ...);
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

  // Makes the arguments left to right, each checked before the next, then calls forward.
  template <int I, class... Made>
  static void call_at(void (*fn)(A...), const ArgDesc* args, int next, void* stream, Made&... made) {
    if constexpr (I == static_cast<int>(sizeof...(A))) {
      fn(made...);
    } else {
      auto value = make_one<typename type_at<I, A...>::type>(args, next, stream);
      call_at<I + 1>(fn, args, next, stream, made..., value);
    }
  }

  static void call(void (*fn)(A...), const ArgDesc* args, void* stream) { call_at<0>(fn, args, 0, stream); }
};

template <class R, class... A>
struct raw_signature<R (*)(A...)> {
  static_assert(std::is_void_v<R>, "hone raw form: forward must return void and write its Out<T> parameters");
};

inline void copy_message(char* err, int32_t errlen, const char* msg) {
  if (err == nullptr || errlen <= 0) return;
  std::snprintf(err, static_cast<size_t>(errlen), "%s", msg);
}

}  // namespace hone::detail

using hone_forward_signature = hone::detail::raw_signature<decltype(&forward)>;

extern "C" __attribute__((visibility("default"))) int32_t hone_abi_version() { return 1; }

extern "C" __attribute__((visibility("default"))) const char* hone_raw_signature() {
  static const hone::detail::Text s = [] {
    hone::detail::Text t;
    hone_forward_signature::describe(t);
    return t;
  }();
  return s.c_str();
}

extern "C" __attribute__((visibility("default"))) int32_t hone_raw_forward(const hone::ArgDesc* args, int32_t nargs,
                                                                         void* stream, char* err, int32_t errlen) {
  if (nargs != hone_forward_signature::arg_count) {
    hone::detail::Text t;
    t << "forward takes " << hone_forward_signature::arg_count << " arguments (";
    hone_forward_signature::describe(t);
    t << "), the harness passes " << static_cast<int>(nargs);
    hone::detail::copy_message(err, errlen, t.c_str());
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
                               (hone::detail::Text() << cudaGetErrorName(launch) << ": " << cudaGetErrorString(launch)).c_str());
    return 2;
  }
#endif
  return 0;
}
