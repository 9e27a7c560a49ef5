"""Making never-written output memory visible: the raw form's harness-owned outputs are filled
with a recognisable NaN (or integer sentinel) before every call; for the torch form the memory an
allocation can return is poisoned before every call (CUDA: every inactive block of the caching
allocator filled with 0xFF bytes, which read as NaN; torch >= 2.1: empty() fills with NaN; CPU:
glibc's malloc perturbation fills every new allocation with 0x7F bytes)."""
import contextlib
import ctypes
import ctypes.util
import importlib
from typing import Iterator, Optional

import torch

from .devices import Device

# Raw-form output poison per dtype: (integer view, bit pattern). Floats get a quiet NaN with a
# payload that arithmetic does not produce, so "never written" is told apart from "computed NaN".
_RAW_POISON = {
    torch.float32: (torch.int32, 0x7FEDBEEF),
    torch.float64: (torch.int64, 0x7FFDEADBEEFDEAD1),
    torch.float16: (torch.int16, 0x7EDB),
    torch.bfloat16: (torch.int16, 0x7FDB),
    torch.int32: (torch.int32, 0xDEADBEEF - (1 << 32)),
    torch.int64: (torch.int64, 0xDEADBEEFDEADBEEF - (1 << 64)),
    torch.int16: (torch.int16, 0xBEEF - (1 << 16)),
    torch.int8: (torch.int8, 0xA5 - (1 << 8)),
    torch.uint8: (torch.uint8, 0xA5),
    torch.bool: (torch.uint8, 0xA5),
}

CUDA_FREE_BYTE = 0xFF  # 0xFFFFFFFF is a NaN in fp32, fp16 and bf16
MALLOC_PERTURB = 0x80  # glibc fills allocations with MALLOC_PERTURB ^ 0xFF = 0x7F, frees with 0x80
_M_PERTURB = -6  # mallopt parameter number, from glibc's malloc.h


def poison_outputs(outputs) -> None:
    """Fills harness-owned raw-form output buffers with their poison pattern."""
    for t in outputs:
        view, pattern = _RAW_POISON[t.dtype]
        t.view(view).fill_(pattern)


def still_poisoned(t: torch.Tensor) -> torch.Tensor:
    """Boolean mask of the elements of a raw-form output that still hold the poison pattern."""
    view, pattern = _RAW_POISON[t.dtype]
    return t.view(view) == pattern


def allocator_poisoned(t: torch.Tensor) -> torch.Tensor:
    """Boolean mask of elements whose bytes are all the CUDA free-memory or glibc poison byte:
    torch-form output memory that was never written."""
    size = t.element_size()
    if size < 2:  # every byte value is a plausible 8-bit result
        return torch.zeros(t.shape, dtype=torch.bool, device=t.device)
    raw = t.detach().contiguous().view(-1).view(torch.uint8).view(-1, size)
    masks = [(raw == byte).all(dim=1) for byte in (CUDA_FREE_BYTE, MALLOC_PERTURB ^ 0xFF)]
    return (masks[0] | masks[1]).view(t.shape)


class _Libc:
    """glibc's mallopt, found once; None where the C library is not glibc."""

    _mallopt: Optional[ctypes._CFuncPtr] = None
    _searched = False

    @classmethod
    def mallopt(cls, parameter: int, value: int) -> bool:
        if not cls._searched:
            cls._searched = True
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                cls._mallopt = libc.mallopt
                cls._mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            except (OSError, AttributeError):
                cls._mallopt = None
        return bool(cls._mallopt and cls._mallopt(parameter, value) == 1)


def stop_malloc_perturbation() -> None:
    """Called at start-up: a MALLOC_PERTURB_ inherited from the environment would slow every
    allocation, timed ones included; perturbation is switched on only where it is needed."""
    _Libc.mallopt(_M_PERTURB, 0)


@contextlib.contextmanager
def malloc_perturbation() -> Iterator[bool]:
    """glibc fills every allocation with 0x7F bytes and every free with 0x80 inside this block
    (mallopt M_PERTURB, the runtime form of MALLOC_PERTURB_); off outside, so timing is not
    slowed by it. Yields whether the C library supports it."""
    active = _Libc.mallopt(_M_PERTURB, MALLOC_PERTURB)
    try:
        yield active
    finally:
        if active:
            _Libc.mallopt(_M_PERTURB, 0)


class _Driver:
    """cuMemsetD8Async from the CUDA driver library, loaded on first use."""

    _memset = None

    @classmethod
    def memset(cls, address: int, byte: int, size: int, stream: int) -> None:
        if cls._memset is None:
            lib = ctypes.CDLL("libcuda.so.1")
            cls._memset = lib.cuMemsetD8Async
            cls._memset.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_void_p]
            cls._memset.restype = ctypes.c_int
        result = cls._memset(address, byte, size, ctypes.c_void_p(stream or None))
        if result != 0:
            raise RuntimeError(f"cuMemsetD8Async of {size} bytes at {address:#x} failed with CUresult {result}")


def poison_cuda_free_memory(device: Device) -> int:
    """Fills every inactive block of the caching allocator on `device` with 0xFF bytes, so an
    allocation the candidate makes reads as NaN until written. Returns the bytes poisoned."""
    stream = torch.cuda.current_stream(device.index).cuda_stream
    total = 0
    for segment in torch.cuda.memory_snapshot():
        if segment.get("device", device.index) != device.index or segment.get("is_expandable", False):
            continue  # expandable segments may have unmapped inactive ranges
        address = segment["address"]
        for block in segment["blocks"]:
            start = block.get("address", address)
            if block["state"] == "inactive":
                _Driver.memset(start, CUDA_FREE_BYTE, block["size"], stream)
                total += block["size"]
            address = start + block["size"]
    torch.cuda.synchronize(device.index)
    return total


@contextlib.contextmanager
def uninitialized_memory_filled() -> Iterator[None]:
    """torch >= 2.1: empty() and friends fill new tensors with NaN (or the integer maximum)
    inside this block; deterministic algorithms are switched on in warn-only mode for it."""
    try:
        deterministic = importlib.import_module("torch.utils.deterministic")
    except ImportError:
        deterministic = None
    if deterministic is None or not hasattr(deterministic, "fill_uninitialized_memory"):
        yield
        return
    was_enabled = torch.are_deterministic_algorithms_enabled()
    was_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    was_fill = deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        deterministic.fill_uninitialized_memory = was_fill
        torch.use_deterministic_algorithms(was_enabled, warn_only=was_warn_only)


@contextlib.contextmanager
def fresh_allocations_poisoned(device: Device, problems: list) -> Iterator[None]:
    """Around one torch-form candidate call: whatever memory it allocates reads as poison. A
    failure to poison the CUDA allocator's free blocks is appended to `problems` (the check goes
    on with the remaining poisoning, and the verdict is flagged)."""
    if device.is_cuda:
        try:
            poison_cuda_free_memory(device)
        except (OSError, RuntimeError, KeyError, AttributeError) as exc:
            problems.append(f"free CUDA memory could not be poisoned: {exc}")
    with uninitialized_memory_filled():
        yield
