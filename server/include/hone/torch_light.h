// hone/torch_light.h: the light stand-in for <torch/extension.h> (included by the shim when the
// build defines HONE_TORCH_LIGHT): the Tensor class with its methods and operators, TORCH_CHECK,
// the c10 CUDA stream and device guard under nvcc, the `torch::` names kernels use, and the
// per-operator headers of exactly the torch::/at:: functions the kernel calls (the build writes
// their #includes to hone_torch_ops.h in its folder). Parsing this instead of <torch/types.h>
// halves the compile. When a kernel needs more, hone rebuilds it with the full header.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/util/Exception.h>
#include <c10/util/Optional.h>

// The Tensor operators (a + b, a * 2 ...) with only the one per-operator header they need.
#ifdef AT_PER_OPERATOR_HEADERS
#include <ATen/TensorOperators.h>
#else
#define AT_PER_OPERATOR_HEADERS
#include <ATen/TensorOperators.h>
#undef AT_PER_OPERATOR_HEADERS
#endif

// A CPU-only torch may ship c10/cuda without its generated configuration header.
#if defined(__CUDACC__) && __has_include(<c10/cuda/impl/cuda_cmake_macros.h>)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "hone_torch_ops.h"

// The names <torch/types.h> adds to namespace torch.
namespace torch {
using namespace at;  // NOLINT
using c10::nullopt;
using c10::optional;
using Dtype = at::ScalarType;
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kU8 = kUInt8;
constexpr auto kI8 = kInt8;
constexpr auto kI16 = kInt16;
constexpr auto kI32 = kInt32;
constexpr auto kI64 = kInt64;
constexpr auto kF16 = kFloat16;
constexpr auto kF32 = kFloat32;
constexpr auto kF64 = kFloat64;
}  // namespace torch
