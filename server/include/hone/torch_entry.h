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

#include "hone/torch_signature.h"

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
