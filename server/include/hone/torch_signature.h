// hone/torch_signature.h: the TorchScript schema of a C++ function, derived at compile time
// (Tensor, int/int64_t, float/double and bool arguments; a Tensor, a tuple of Tensors, a
// vector of Tensors or nothing returned), and a call of it on hone's C argument array
// (hone/torch_abi.h). Shared by hone/torch_entry.h (a torch-form kernel's forward) and
// hone/inline_entry.h (the functions of a load_inline answer). Needs only <ATen/core/Tensor.h>.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

template <>
struct ret<void> {
  static constexpr int kind = HONE_TORCH_RETURN_NONE;
  static std::string schema() { return "()"; }
};

template <class F>
struct signature;

template <class R, class... A>
struct signature<R (*)(A...)> {
  template <class P>
  using param = arg<std::remove_cv_t<std::remove_reference_t<P>>>;
  using result = ret<std::remove_cv_t<R>>;
  static constexpr int arity = sizeof...(A);

  static std::string schema(const char* name = "forward") {
    std::string s = std::string(name) + "(";
    int i = 0;
    ((s += (i ? ", " : ""), s += param<A>::schema(), s += " a" + std::to_string(i++)), ...);
    return s + ") -> " + result::schema();
  }

  template <size_t... I>
  static R invoke(R (*fn)(A...), const HoneTorchArg* args, std::index_sequence<I...>) {
    return fn(param<A>::get(args[I])...);
  }

  static void call(R (*fn)(A...), const HoneTorchArg* args, std::vector<at::Tensor>& out) {
    if constexpr (std::is_void_v<R>)
      invoke(fn, args, std::index_sequence_for<A...>{});
    else
      result::put(invoke(fn, args, std::index_sequence_for<A...>{}), out);
  }
};

}  // namespace hone::torch_detail
