// hone/torch_glue.cpp: registers a torch-form kernel's forward with the PyTorch dispatcher as
// torch.ops.<namespace>.forward, or a load_inline answer's functions as torch.ops.<namespace>.<name>
// (hone/inline_entry.h defines the op table; the glue refers to it weakly). Compiled once per torch
// version (it is the only part that includes <torch/library.h>) and linked into every torch-form
// kernel; the kernel's generated entry (hone/torch_entry.h) supplies the namespace, the schema and
// the call.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hone/torch_abi.h"

extern "C" {
const char* hone_torch_schema(void) __attribute__((weak));
int32_t hone_torch_return_kind(void) __attribute__((weak));
int32_t hone_torch_call(const struct HoneTorchArg*, int32_t, void*, char*, int32_t) __attribute__((weak));
int32_t hone_torch_op_count(void) __attribute__((weak));
const char* hone_torch_op_schema(int32_t) __attribute__((weak));
int32_t hone_torch_op_return_kind(int32_t) __attribute__((weak));
int32_t hone_torch_op_call(int32_t, const struct HoneTorchArg*, int32_t, void*, char*, int32_t) __attribute__((weak));
}

namespace {

// The op table's index of each registered name ("ns::name"); empty for a one-forward kernel.
std::map<std::string, int32_t>& op_index() {
  static std::map<std::string, int32_t> index;
  return index;
}

void call_forward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const size_t n = op.schema().arguments().size();
  std::vector<at::Tensor> tensors;
  tensors.reserve(n);
  std::vector<HoneTorchArg> args(n);
  auto inputs = torch::jit::last(*stack, n);
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = inputs[i];
    HoneTorchArg& a = args[i];
    if (v.isTensor()) {
      tensors.push_back(v.toTensor());
      a.kind = HONE_TORCH_ARG_TENSOR;
    } else if (v.isInt()) {
      a.kind = HONE_TORCH_ARG_INT;
      a.i = v.toInt();
    } else if (v.isDouble()) {
      a.kind = HONE_TORCH_ARG_FLOAT;
      a.d = v.toDouble();
    } else if (v.isBool()) {
      a.kind = HONE_TORCH_ARG_BOOL;
      a.b = v.toBool() ? 1 : 0;
    } else {
      TORCH_CHECK(false, "hone: forward argument ", i, " has unsupported type ", v.tagKind());
    }
  }
  for (size_t i = 0, t = 0; i < n; ++i)
    if (args[i].kind == HONE_TORCH_ARG_TENSOR) args[i].tensor = &tensors[t++];
  torch::jit::drop(*stack, n);

  std::vector<at::Tensor> outputs;
  char err[2048] = {0};
  int32_t kind = 0, rc = 0;
  if (hone_torch_op_count != nullptr) {
    auto it = op_index().find(op.schema().name());
    TORCH_CHECK(it != op_index().end(), "hone: no function registered as ", op.schema().name());
    rc = hone_torch_op_call(it->second, args.data(), static_cast<int32_t>(n), &outputs, err, sizeof err);
    kind = hone_torch_op_return_kind(it->second);
  } else {
    rc = hone_torch_call(args.data(), static_cast<int32_t>(n), &outputs, err, sizeof err);
    kind = hone_torch_return_kind();
  }
  TORCH_CHECK(rc != 2, "hone: CUDA launch error: ", err);
  TORCH_CHECK(rc == 0, err);

  switch (kind) {
    case HONE_TORCH_RETURN_SINGLE:
    case HONE_TORCH_RETURN_TUPLE:
      for (auto& t : outputs) torch::jit::push(*stack, std::move(t));
      break;
    case HONE_TORCH_RETURN_LIST:
      torch::jit::push(*stack, c10::IValue(c10::List<at::Tensor>(outputs)));
      break;
    case HONE_TORCH_RETURN_NONE:
      break;
  }
}

struct Registration {
  std::unique_ptr<torch::Library> library;
  Registration() {
    library = std::make_unique<torch::Library>(torch::Library::DEF, hone_torch_namespace(), c10::nullopt, __FILE__,
                                               static_cast<uint32_t>(__LINE__));
    if (hone_torch_op_count != nullptr) {
      const std::string ns = hone_torch_namespace();
      for (int32_t i = 0; i < hone_torch_op_count(); ++i) {
        std::string schema = hone_torch_op_schema(i);
        op_index()[ns + "::" + schema.substr(0, schema.find('('))] = i;
        library->def(schema.c_str(), torch::CppFunction::makeFromBoxedFunction<&call_forward>());
      }
      return;
    }
    library->def(hone_torch_schema(), torch::CppFunction::makeFromBoxedFunction<&call_forward>());
  }
};

const Registration registration;

}  // namespace
