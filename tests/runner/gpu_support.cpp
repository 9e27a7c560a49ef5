// tests/runner/gpu_support.cpp: VMM export for the GPU tests.
#include "gpu_support.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace hone::runner_test {
namespace {

template <class F>
F entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) != cudaSuccess || !p)
    throw std::runtime_error(std::string("no driver entry point ") + name);
  return reinterpret_cast<F>(p);
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + " failed: CUresult " + std::to_string(static_cast<int>(r)));
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(e));
}

CUmemAllocationProp device_prop() {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  return prop;
}

}  // namespace

int gpu_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

VmmBuffer::VmmBuffer(std::size_t bytes) {
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "cudaFree(0)");
  const CUmemAllocationProp prop = device_prop();
  std::size_t granule = 0;
  check(entry<PFN_cuMemGetAllocationGranularity_v10020>("cuMemGetAllocationGranularity")(&granule, &prop,
                                                                                          CU_MEM_ALLOC_GRANULARITY_MINIMUM),
        "cuMemGetAllocationGranularity");
  size_ = (bytes + granule - 1) / granule * granule;
  CUmemGenericAllocationHandle h = 0;
  check(entry<PFN_cuMemCreate_v10020>("cuMemCreate")(&h, size_, &prop, 0), "cuMemCreate");
  handle_ = h;
  check(entry<PFN_cuMemExportToShareableHandle_v10020>("cuMemExportToShareableHandle")(
            &fd_, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemExportToShareableHandle");
  CUdeviceptr ptr = 0;
  check(entry<PFN_cuMemAddressReserve_v10020>("cuMemAddressReserve")(&ptr, size_, 0, 0, 0), "cuMemAddressReserve");
  address_ = ptr;
  check(entry<PFN_cuMemMap_v10020>("cuMemMap")(ptr, size_, 0, h, 0), "cuMemMap");
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(entry<PFN_cuMemSetAccess_v10020>("cuMemSetAccess")(ptr, size_, &access, 1), "cuMemSetAccess");
  check(cudaMemset(reinterpret_cast<void*>(ptr), 0xFF, size_), "cudaMemset");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

VmmBuffer::~VmmBuffer() {
  if (address_) {
    entry<PFN_cuMemUnmap_v10020>("cuMemUnmap")(address_, size_);
    entry<PFN_cuMemAddressFree_v10020>("cuMemAddressFree")(address_, size_);
  }
  if (handle_) entry<PFN_cuMemRelease_v10020>("cuMemRelease")(handle_);
  if (fd_ >= 0) ::close(fd_);
}

void VmmBuffer::write(std::size_t offset, const std::vector<float>& values) {
  check(cudaMemcpy(reinterpret_cast<char*>(address_) + offset, values.data(), values.size() * sizeof(float),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy to the VMM buffer");
}

std::vector<float> VmmBuffer::read(std::size_t offset, std::size_t count) const {
  std::vector<float> out(count);
  check(cudaMemcpy(out.data(), reinterpret_cast<const char*>(address_) + offset, count * sizeof(float),
                   cudaMemcpyDeviceToHost),
        "cudaMemcpy from the VMM buffer");
  return out;
}

}  // namespace hone::runner_test
