// hone/torch_entry.h: appended by hone after a torch-form kernel's source (which defines
//   torch::Tensor forward(torch::Tensor x, ...);
// returning a Tensor, a std::tuple of Tensors or a std::vector<Tensor>). It derives the
// TorchScript schema of forward at compile time and exports a C++-free call for the glue
// (hone/torch_glue.cpp, compiled once per torch version), which registers the op as
// torch.ops.<HONE_OP_NAMESPACE>.forward. Needs only <ATen/core/Tensor.h>: no library.h, no pybind11.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdio>
#include <exception>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#ifndef HONE_OP_NAMESPACE
#error "hone: HONE_OP_NAMESPACE must be defined by the build"
#endif
#define HONE_STRINGIFY_INNER(x) #x
#define HONE_STRINGIFY(x) HONE_STRINGIFY_INNER(x)

#include "hone/torch_abi.h"

namespace hone::torch_detail {

template <class T>
struct arg;
template <>
struct arg<at::Tensor> {
  static constexpr int kind = HONE_TORCH_ARG_TENSOR;
  static const char* schema() { return "Tensor"; }
  static at::Tensor get(const HoneTorchArg& a) { return *static_cast<const at::Tensor*>(a.tensor); }
};
template <>
struct arg<int64_t> {
  static constexpr int kind = HONE_TORCH_ARG_INT;
  static const char* schema() { return "int"; }
  static int64_t get(const HoneTorchArg& a) { return a.i; }
};
template <>
struct arg<int> : arg<int64_t> {};
template <>
struct arg<double> {
  static constexpr int kind = HONE_TORCH_ARG_FLOAT;
  static const char* schema() { return "float"; }
  static double get(const HoneTorchArg& a) { return a.d; }
};
template <>
struct arg<float> : arg<double> {};
template <>
struct arg<bool> {
  static constexpr int kind = HONE_TORCH_ARG_BOOL;
  static const char* schema() { return "bool"; }
  static bool get(const HoneTorchArg& a) { return a.b != 0; }
};

template <class T>
struct ret;
template <>
struct ret<at::Tensor> {
  static constexpr int kind = HONE_TORCH_RETURN_SINGLE;
  static std::string schema() { return "Tensor"; }
  static void put(at::Tensor&& t, std::vector<at::Tensor>& out) { out.push_back(std::move(t)); }
};
template <class... T>
struct ret<std::tuple<T...>> {
  static_assert((std::is_same_v<T, at::Tensor> && ...), "hone torch form: forward may return a tuple of Tensors only");
  static constexpr int kind = HONE_TORCH_RETURN_TUPLE;
  static std::string schema() {
    std::string s = "(";
    for (size_t i = 0; i < sizeof...(T); ++i) s += (i ? ", Tensor" : "Tensor");
    return s + ")";
  }
  static void put(std::tuple<T...>&& t, std::vector<at::Tensor>& out) {
    std::apply([&](auto&&... x) { (out.push_back(std::move(x)), ...); }, std::move(t));
  }
};
template <>
struct ret<std::vector<at::Tensor>> {
  static constexpr int kind = HONE_TORCH_RETURN_LIST;
  static std::string schema() { return "Tensor[]"; }
  static void put(std::vector<at::Tensor>&& v, std::vector<at::Tensor>& out) {
    for (auto& t : v) out.push_back(std::move(t));
  }
};

template <class F>
struct signature;

template <class R, class... A>
struct signature<R (*)(A...)> {
  template <class P>
  using param = arg<std::remove_cv_t<std::remove_reference_t<P>>>;
  using result = ret<std::remove_cv_t<R>>;
  static constexpr int arity = sizeof...(A);

  static std::string schema() {
    std::string s = "forward(";
    int i = 0;
    ((s += (i ? ", " : ""), s += param<A>::schema(), s += " a" + std::to_string(i++)), ...);
    return s + ") -> " + result::schema();
  }

  template <size_t... I>
  static R invoke(R (*fn)(A...), const HoneTorchArg* args, std::index_sequence<I...>) {
    return fn(param<A>::get(args[I])...);
  }

  static void call(R (*fn)(A...), const HoneTorchArg* args, std::vector<at::Tensor>& out) {
    result::put(invoke(fn, args, std::index_sequence_for<A...>{}), out);
  }
};

}  // namespace hone::torch_detail

using hone_torch_forward_signature = hone::torch_detail::signature<decltype(&forward)>;

extern "C" __attribute__((visibility("hidden"))) const char* hone_torch_namespace() {
  return HONE_STRINGIFY(HONE_OP_NAMESPACE);
}

extern "C" __attribute__((visibility("hidden"))) const char* hone_torch_schema() {
  static const std::string s = hone_torch_forward_signature::schema();
  return s.c_str();
}

extern "C" __attribute__((visibility("hidden"))) int32_t hone_torch_return_kind() {
  return hone_torch_forward_signature::result::kind;
}

extern "C" __attribute__((visibility("hidden"))) int32_t hone_torch_call(const HoneTorchArg* args, int32_t nargs,
                                                                        void* outputs, char* err, int32_t errlen) {
  auto fail = [&](const std::string& msg, int32_t code) {
    if (err != nullptr && errlen > 0) std::snprintf(err, static_cast<size_t>(errlen), "%s", msg.c_str());
    return code;
  };
  if (nargs != hone_torch_forward_signature::arity)
    return fail("forward takes " + std::to_string(hone_torch_forward_signature::arity) + " arguments, got " +
                    std::to_string(nargs),
                1);
  try {
    hone_torch_forward_signature::call(&forward, args, *static_cast<std::vector<at::Tensor>*>(outputs));
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
#if defined(__CUDACC__)
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) return fail(std::string(cudaGetErrorName(launch)) + ": " + cudaGetErrorString(launch), 2);
#endif
  return 0;
}
