// hone/inline_entry.h: appended by hone after the sources of one load_inline call of a KernelBench
// answer (issue 15), with the table of its `functions`:
//   HONE_INLINE_FUNCTIONS(HONE_INLINE_FUNCTION(relu_cuda) HONE_INLINE_FUNCTION(other))
// Each function is registered by the glue (hone/torch_glue.cpp) as
// torch.ops.<HONE_OP_NAMESPACE>.<name>, its schema derived at compile time as the torch form's
// forward is (hone/torch_signature.h); the answer's `load_inline(...)` returns an object whose
// attributes are these ops. Needs only <ATen/core/Tensor.h>: no pybind11, no Python headers.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#ifndef HONE_OP_NAMESPACE
#error "hone: HONE_OP_NAMESPACE must be defined by the build"
#endif
#define HONE_STRINGIFY_INNER(x) #x
#define HONE_STRINGIFY(x) HONE_STRINGIFY_INNER(x)

#include "hone/torch_signature.h"

namespace hone::inline_detail {

struct Op {
  const char* name;
  std::string (*schema)(const char*);
  int32_t return_kind;
  int32_t arity;
  void (*call)(const HoneTorchArg*, std::vector<at::Tensor>&);
};

template <auto Fn>
void call(const HoneTorchArg* args, std::vector<at::Tensor>& out) {
  ::hone::torch_detail::signature<decltype(Fn)>::call(Fn, args, out);
}

}  // namespace hone::inline_detail

#define HONE_INLINE_FUNCTION(fn)                                                                   \
  ::hone::inline_detail::Op{#fn, &::hone::torch_detail::signature<decltype(&fn)>::schema,         \
                            ::hone::torch_detail::signature<decltype(&fn)>::result::kind,         \
                            ::hone::torch_detail::signature<decltype(&fn)>::arity,                \
                            &::hone::inline_detail::call<&fn>},

#define HONE_INLINE_FUNCTIONS(...)                                                                 \
  namespace hone::inline_detail {                                                                  \
  static const Op kOps[] = {__VA_ARGS__};                                                          \
  }

#define HONE_INLINE_EXPORTS                                                                                         \
  extern "C" __attribute__((visibility("hidden"))) const char* hone_torch_namespace() {                           \
    return HONE_STRINGIFY(HONE_OP_NAMESPACE);                                                                       \
  }                                                                                                                 \
  extern "C" __attribute__((visibility("hidden"))) int32_t hone_torch_op_count() {                                \
    return static_cast<int32_t>(sizeof(::hone::inline_detail::kOps) / sizeof(::hone::inline_detail::kOps[0]));     \
  }                                                                                                                 \
  extern "C" __attribute__((visibility("hidden"))) const char* hone_torch_op_schema(int32_t op) {                 \
    static std::vector<std::string> schemas;                                                                        \
    if (schemas.empty())                                                                                            \
      for (const auto& o : ::hone::inline_detail::kOps) schemas.push_back(o.schema(o.name));                        \
    return schemas[static_cast<size_t>(op)].c_str();                                                                \
  }                                                                                                                 \
  extern "C" __attribute__((visibility("hidden"))) int32_t hone_torch_op_return_kind(int32_t op) {                \
    return ::hone::inline_detail::kOps[op].return_kind;                                                             \
  }                                                                                                                 \
  extern "C" __attribute__((visibility("hidden"))) int32_t hone_torch_op_call(                                    \
      int32_t op, const HoneTorchArg* args, int32_t nargs, void* outputs, char* err, int32_t errlen) {              \
    const auto& o = ::hone::inline_detail::kOps[op];                                                                \
    auto fail = [&](const std::string& msg, int32_t code) {                                                         \
      if (err != nullptr && errlen > 0) std::snprintf(err, static_cast<size_t>(errlen), "%s", msg.c_str());        \
      return code;                                                                                                  \
    };                                                                                                              \
    if (nargs != o.arity)                                                                                           \
      return fail(std::string(o.name) + " takes " + std::to_string(o.arity) + " arguments, got " +                 \
                      std::to_string(nargs),                                                                        \
                  1);                                                                                               \
    try {                                                                                                           \
      o.call(args, *static_cast<std::vector<at::Tensor>*>(outputs));                                                \
    } catch (const std::exception& e) {                                                                             \
      return fail(e.what(), 1);                                                                                     \
    }                                                                                                               \
    HONE_INLINE_LAUNCH_CHECK                                                                                        \
    return 0;                                                                                                       \
  }

#if defined(__CUDACC__)
#define HONE_INLINE_LAUNCH_CHECK                                                                                   \
  {                                                                                                                \
    cudaError_t launch = cudaGetLastError();                                                                       \
    if (launch != cudaSuccess)                                                                                     \
      return fail(std::string(cudaGetErrorName(launch)) + ": " + cudaGetErrorString(launch), 2);                  \
  }
#else
#define HONE_INLINE_LAUNCH_CHECK
#endif
