// runner/vmm_import.cpp: CUDA VMM import through driver entry points from the runtime.
#include "runner/vmm_import.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <string>

#include "runner/wire.h"

namespace hone::runner {
namespace {

constexpr unsigned kDriverApiVersion = 12000;

struct DriverApi {
  PFN_cuMemImportFromShareableHandle_v10020 import_handle = nullptr;
  PFN_cuMemGetAllocationPropertiesFromHandle_v10020 properties = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuGetErrorName_v6000 error_name = nullptr;
};

template <class F>
void resolve(const char* symbol, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &p, kDriverApiVersion, cudaEnableDefault, &status);
  if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || p == nullptr)
    throw OpError(ErrorKind::Internal, std::string("map: the CUDA driver has no ") + symbol + " (" +
                                           cudaGetErrorName(e) + "): CUDA VMM arenas need a driver >= 12.0");
  fn = reinterpret_cast<F>(p);
}

const DriverApi& driver() {
  static const DriverApi api = [] {
    DriverApi a;
    resolve("cuMemImportFromShareableHandle", a.import_handle);
    resolve("cuMemGetAllocationPropertiesFromHandle", a.properties);
    resolve("cuMemGetAllocationGranularity", a.granularity);
    resolve("cuMemAddressReserve", a.reserve);
    resolve("cuMemAddressFree", a.address_free);
    resolve("cuMemMap", a.map);
    resolve("cuMemUnmap", a.unmap);
    resolve("cuMemSetAccess", a.set_access);
    resolve("cuMemRelease", a.release);
    resolve("cuGetErrorName", a.error_name);
    return a;
  }();
  return api;
}

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (driver().error_name(r, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
  throw OpError(ErrorKind::Internal, std::string("map: ") + call + " failed: " + name + " (" +
                                         std::to_string(static_cast<int>(r)) + ")");
}

class VmmMapping final : public ImportedMemory {
 public:
  ~VmmMapping() override {
    const DriverApi& d = driver();
    if (mapped_) d.unmap(address_, size_);
    if (address_) d.address_free(address_, size_);
    if (handle_) d.release(handle_);
  }
  void* address() const override { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_)); }

  void import(int fd, std::size_t bytes, int device) {
    const DriverApi& d = driver();
    check(d.import_handle(&handle_, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          "cuMemImportFromShareableHandle");
    CUmemAllocationProp prop{};
    check(d.properties(&prop, handle_), "cuMemGetAllocationPropertiesFromHandle");
    std::size_t granule = 0;
    check(d.granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
    size_ = granule > 0 ? (bytes + granule - 1) / granule * granule : bytes;
    check(d.reserve(&address_, size_, 0, 0, 0), "cuMemAddressReserve");
    check(d.map(address_, size_, 0, handle_, 0), "cuMemMap");
    mapped_ = true;
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(d.set_access(address_, size_, &access, 1), "cuMemSetAccess");
  }

 private:
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr address_ = 0;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace

std::unique_ptr<ImportedMemory> import_vmm_fd(int fd, std::size_t bytes, int device) {
  auto mapping = std::make_unique<VmmMapping>();
  mapping->import(fd, bytes, device);
  return mapping;
}

}  // namespace hone::runner
