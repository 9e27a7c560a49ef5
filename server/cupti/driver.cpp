// cupti/driver.cpp: dlopen/dlsym of libcuda.so.1 (RTLD_NOLOAD first: the worker's torch has it).
#include "driver.h"

#include <dlfcn.h>

#include <string>

#include "cupti_error.h"

namespace hone::cupti {
namespace {

void* driver_symbol(const char* name) {
  static void* handle = [] {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h) h = dlopen("libcuda.so.1", RTLD_LAZY);
    return h;
  }();
  if (!handle) fail("no_device", "dlopen(libcuda.so.1)", "the NVIDIA driver library libcuda.so.1 is not available: no GPU driver on this machine");
  void* sym = dlsym(handle, name);
  if (!sym) fail("no_device", std::string("dlsym(") + name + ")", std::string("libcuda.so.1 has no ") + name);
  return sym;
}

void check_driver(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  fail(r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NOT_INITIALIZED ? "no_device" : "cuda_error", call,
       std::string(call) + " failed with CUDA driver error " + std::to_string(static_cast<int>(r)));
}

}  // namespace

CUcontext current_context() {
  using Fn = CUresult (*)(CUcontext*);
  auto fn = reinterpret_cast<Fn>(driver_symbol("cuCtxGetCurrent"));
  CUcontext ctx = nullptr;
  check_driver(fn(&ctx), "cuCtxGetCurrent");
  if (!ctx)
    fail("no_context", "cuCtxGetCurrent",
         "no current CUDA context on the calling thread: initialise CUDA (e.g. torch.cuda.init() or a first "
         "allocation) before hone_cupti_begin");
  return ctx;
}

int current_device() {
  using Fn = CUresult (*)(CUdevice*);
  auto fn = reinterpret_cast<Fn>(driver_symbol("cuCtxGetDevice"));
  CUdevice dev = 0;
  check_driver(fn(&dev), "cuCtxGetDevice");
  return static_cast<int>(dev);
}

void synchronize_context() {
  using Fn = CUresult (*)();
  auto fn = reinterpret_cast<Fn>(driver_symbol("cuCtxSynchronize"));
  check_driver(fn(), "cuCtxSynchronize");
}

}  // namespace hone::cupti
