"""CUDA virtual memory management through the driver (libcuda.so.1, ctypes): physical allocations
shareable as POSIX file descriptors (cuMemCreate, cuMemExportToShareableHandle,
cuMemImportFromShareableHandle) mapped read-write at an address range of their own (cuMemAddressReserve,
cuMemMap, cuMemSetAccess). Used by arena.py only; every call needs the device's primary context to be
current on the calling thread, which arena.py makes sure of through torch."""
import ctypes
from typing import Optional

CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0


class CudaDriverError(RuntimeError):
    """A driver call failed; `name` is the CUresult's name (CUDA_ERROR_...)."""

    def __init__(self, call: str, code: int, name: str, text: str) -> None:
        super().__init__(f"{call} failed: {name} ({code}): {text}")
        self.call, self.code, self.name = call, code, name


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


_driver: Optional[ctypes.CDLL] = None


def _cu() -> ctypes.CDLL:
    global _driver
    if _driver is None:
        lib = ctypes.CDLL("libcuda.so.1")
        u64, size, vp, i = ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int
        signatures = {
            "cuGetErrorName": [i, ctypes.POINTER(ctypes.c_char_p)],
            "cuGetErrorString": [i, ctypes.POINTER(ctypes.c_char_p)],
            "cuCtxGetCurrent": [ctypes.POINTER(vp)],
            "cuMemGetAllocationGranularity": [ctypes.POINTER(size), ctypes.POINTER(_AllocationProp), i],
            "cuMemCreate": [ctypes.POINTER(u64), size, ctypes.POINTER(_AllocationProp), u64],
            "cuMemRelease": [u64],
            "cuMemExportToShareableHandle": [vp, u64, i, u64],
            "cuMemImportFromShareableHandle": [ctypes.POINTER(u64), vp, i],
            "cuMemAddressReserve": [ctypes.POINTER(u64), size, size, u64, u64],
            "cuMemAddressFree": [u64, size],
            "cuMemMap": [u64, size, size, u64, u64],
            "cuMemUnmap": [u64, size],
            "cuMemSetAccess": [u64, size, ctypes.POINTER(_AccessDesc), size],
        }
        for name, argtypes in signatures.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = argtypes, ctypes.c_int
        _driver = lib
    return _driver


def _check(code: int, call: str) -> None:
    if code == 0:
        return
    name, text = ctypes.c_char_p(), ctypes.c_char_p()
    _cu().cuGetErrorName(code, ctypes.byref(name))
    _cu().cuGetErrorString(code, ctypes.byref(text))
    raise CudaDriverError(call, code, (name.value or b"CUDA_ERROR_UNKNOWN").decode(),
                          (text.value or b"unknown error").decode())


def _prop(device_index: int) -> _AllocationProp:
    prop = _AllocationProp()
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = device_index
    return prop


def has_current_context() -> bool:
    """Whether a CUDA context is current on the calling thread."""
    context = ctypes.c_void_p()
    _check(_cu().cuCtxGetCurrent(ctypes.byref(context)), "cuCtxGetCurrent")
    return bool(context.value)


def granularity(device_index: int) -> int:
    """The minimum size and alignment of a shareable allocation on the device (2 MiB on the H200)."""
    value = ctypes.c_size_t()
    _check(_cu().cuMemGetAllocationGranularity(ctypes.byref(value), ctypes.byref(_prop(device_index)),
                                               CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity")
    return value.value


def create(size: int, device_index: int) -> int:
    """A physical allocation of `size` bytes (a multiple of granularity()); returns its handle."""
    handle = ctypes.c_uint64()
    _check(_cu().cuMemCreate(ctypes.byref(handle), size, ctypes.byref(_prop(device_index)), 0), "cuMemCreate")
    return handle.value


def export_fd(handle: int) -> int:
    """A new POSIX file descriptor for the allocation (the caller owns and closes it)."""
    fd = ctypes.c_int(-1)
    _check(_cu().cuMemExportToShareableHandle(ctypes.byref(fd), handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           "cuMemExportToShareableHandle")
    return fd.value


def import_fd(fd: int) -> int:
    """The allocation behind an exported descriptor; returns a handle (the descriptor stays open)."""
    handle = ctypes.c_uint64()
    _check(_cu().cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fd),
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
           "cuMemImportFromShareableHandle")
    return handle.value


def release(handle: int) -> None:
    _check(_cu().cuMemRelease(handle), "cuMemRelease")


def map_read_write(handle: int, size: int, device_index: int) -> int:
    """Reserves an address range, maps the allocation there and makes it read-write on the device;
    returns the address. Undone by unmap()."""
    address = ctypes.c_uint64()
    _check(_cu().cuMemAddressReserve(ctypes.byref(address), size, 0, 0, 0), "cuMemAddressReserve")
    try:
        _check(_cu().cuMemMap(address.value, size, 0, handle, 0), "cuMemMap")
        try:
            access = _AccessDesc()
            access.location.type = CU_MEM_LOCATION_TYPE_DEVICE
            access.location.id = device_index
            access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE
            _check(_cu().cuMemSetAccess(address.value, size, ctypes.byref(access), 1), "cuMemSetAccess")
        except CudaDriverError:
            _cu().cuMemUnmap(address.value, size)
            raise
    except CudaDriverError:
        _cu().cuMemAddressFree(address.value, size)
        raise
    return address.value


def unmap(address: int, size: int) -> None:
    """Unmaps a range map_read_write() made and frees its addresses."""
    _check(_cu().cuMemUnmap(address, size), "cuMemUnmap")
    _check(_cu().cuMemAddressFree(address, size), "cuMemAddressFree")
