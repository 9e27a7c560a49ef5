// hone/torch_abi.h: the C interface between a torch-form kernel's generated entry
// (hone/torch_entry.h, compiled with the kernel) and the registration glue
// (hone/torch_glue.cpp, compiled once per torch version and linked into every torch-form kernel).
#pragma once

#include <stdint.h>

#define HONE_TORCH_ARG_TENSOR 0
#define HONE_TORCH_ARG_INT 1
#define HONE_TORCH_ARG_FLOAT 2
#define HONE_TORCH_ARG_BOOL 3

#define HONE_TORCH_RETURN_SINGLE 0
#define HONE_TORCH_RETURN_TUPLE 1
#define HONE_TORCH_RETURN_LIST 2
#define HONE_TORCH_RETURN_NONE 3

// One forward argument. `tensor` points at an at::Tensor owned by the caller.
struct HoneTorchArg {
  int32_t kind;
  int32_t b;
  int64_t i;
  double d;
  const void* tensor;
};

#ifdef __cplusplus
extern "C" {
#endif
const char* hone_torch_namespace(void);
const char* hone_torch_schema(void);
int32_t hone_torch_return_kind(void);
// outputs: a std::vector<at::Tensor>* that receives forward's results.
// Returns 0 ok, 1 exception (message in err), 2 CUDA launch error.
int32_t hone_torch_call(const struct HoneTorchArg* args, int32_t nargs, void* outputs, char* err, int32_t errlen);

// A load_inline answer's functions (hone/inline_entry.h) instead of one forward: op i is
// registered as torch.ops.<namespace>.<name>, its schema naming it. The glue uses these when the
// library defines them (weak references), else the forward functions above.
int32_t hone_torch_op_count(void);
const char* hone_torch_op_schema(int32_t op);
int32_t hone_torch_op_return_kind(int32_t op);
int32_t hone_torch_op_call(int32_t op, const struct HoneTorchArg* args, int32_t nargs, void* outputs, char* err,
                           int32_t errlen);
#ifdef __cplusplus
}
#endif
