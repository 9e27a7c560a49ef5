"""Memory shared between the judge and a candidate process (protocol/WORKER.md, "Buffers"): host
arenas (a memfd mapped shared) and CUDA arenas (a VMM allocation exported as a POSIX fd), both
seen as torch tensors at an offset with a dtype, shape and strides; and the BUF/ARG JSON that names
such a tensor. The judge plans a layout, creates and exports arenas and sends their fds with `map`;
a runner attaches them from the fds it receives. Views keep their arena's memory alive: an arena
refuses to close while a tensor still views it. Not thread-safe: each arena belongs to one thread."""
import ctypes
import math
import mmap
import os
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple, Union

import torch

from . import vmm

# The dtypes a BUF may name (the raw ABI's, hone.h).
DTYPES: Dict[str, torch.dtype] = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
    "int32": torch.int32, "int64": torch.int64, "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8,
    "bool": torch.bool,
}
_NAMES = {v: k for k, v in DTYPES.items()}
_ITEMSIZE = {name: torch.empty((), dtype=dtype).element_size() for name, dtype in DTYPES.items()}
ALIGNMENT = 256  # bytes; where Layout places each buffer (the CUDA allocator's alignment)
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class BadBuffer(ValueError):
    """A BUF or ARG that does not describe memory of a known arena (a bad request)."""


def dtype_name(dtype: torch.dtype) -> str:
    """"float32" for torch.float32; raises BadBuffer for a dtype a BUF cannot name."""
    if dtype not in _NAMES:
        raise BadBuffer(f"dtype {dtype} cannot be shared (supported: {', '.join(DTYPES)})")
    return _NAMES[dtype]


def contiguous_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    """Row-major strides, in elements, of a tensor of `shape`."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Buffer:
    """A BUF: a tensor's place in an arena (offset in bytes, strides in elements)."""

    arena: int
    offset: int
    dtype: str
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]

    @staticmethod
    def from_json(obj) -> "Buffer":
        """Parses and validates a BUF object; raises BadBuffer."""
        if not isinstance(obj, dict):
            raise BadBuffer(f"a BUF must be an object, not {type(obj).__name__}")
        for key in ("arena", "offset"):
            if not _is_int(obj.get(key)) or obj[key] < 0:
                raise BadBuffer(f"BUF.{key} must be a non-negative integer, not {obj.get(key)!r}")
        if obj.get("dtype") not in DTYPES:
            raise BadBuffer(f"BUF.dtype must be one of {', '.join(DTYPES)}, not {obj.get('dtype')!r}")
        shape = obj.get("shape")
        if not isinstance(shape, list) or not all(_is_int(n) and n >= 0 for n in shape):
            raise BadBuffer(f"BUF.shape must be a list of non-negative integers, not {shape!r}")
        strides = obj.get("strides", list(contiguous_strides(shape)))
        if not isinstance(strides, list) or len(strides) != len(shape) or not all(_is_int(s) and s >= 0
                                                                                  for s in strides):
            raise BadBuffer(f"BUF.strides must be {len(shape)} non-negative integers (elements), not {strides!r}")
        buf = Buffer(obj["arena"], obj["offset"], obj["dtype"], tuple(shape), tuple(strides))
        if buf.offset % buf.itemsize:
            raise BadBuffer(f"BUF.offset {buf.offset} is not a multiple of the {buf.dtype} element size")
        return buf

    def to_json(self) -> dict:
        """The BUF object of the protocol."""
        return {"arena": self.arena, "offset": self.offset, "dtype": self.dtype, "shape": list(self.shape),
                "strides": list(self.strides)}

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.dtype]

    @property
    def span_bytes(self) -> int:
        """Bytes from `offset` to the end of the last element the view reaches (0 when empty)."""
        if any(n == 0 for n in self.shape):
            return 0
        return (1 + sum((n - 1) * s for n, s in zip(self.shape, self.strides))) * self.itemsize


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_bounds(buf: Buffer, arena_id: int, size: int) -> None:
    if buf.offset + buf.span_bytes > size:
        raise BadBuffer(f"BUF at offset {buf.offset} spans {buf.span_bytes} bytes, past the end of arena {arena_id} "
                        f"({size} bytes)")


def _typed(raw: torch.Tensor, buf: Buffer) -> torch.Tensor:
    """A dtype/shape/strides view of a 1-D uint8 tensor holding exactly the BUF's span."""
    return raw.view(buf.torch_dtype).as_strided(buf.shape, buf.strides)


class HostArena:
    """Host memory in a memfd, mapped shared read-write. `device_address` is set by whoever
    registers the range with CUDA (the runner's `map` with `register`)."""

    kind = "host"

    def __init__(self, arena_id: int, fd: int, size: int) -> None:
        self.id, self.fd, self.size = arena_id, fd, size
        self._mapping = mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        probe = ctypes.c_char.from_buffer(self._mapping)
        self.address = ctypes.addressof(probe)
        del probe
        self.device_address: Optional[int] = None

    @staticmethod
    def create(arena_id: int, size: int) -> "HostArena":
        """The judge's side: a new zero-filled arena of at least `size` bytes (rounded up to pages)."""
        fd = os.memfd_create(f"hone-arena-{arena_id}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        rounded = round_up(max(size, 1), mmap.PAGESIZE)
        try:
            os.ftruncate(fd, rounded)
            return HostArena(arena_id, fd, rounded)
        except BaseException:
            os.close(fd)
            raise

    @staticmethod
    def attach(arena_id: int, fd: int, size: int) -> "HostArena":
        """The runner's side: maps `size` bytes of a received memfd; the arena owns `fd` from now on."""
        actual = os.fstat(fd).st_size
        if size <= 0 or size > actual:
            raise BadBuffer(f"host arena {arena_id}: {size} bytes asked, the memfd holds {actual}")
        return HostArena(arena_id, fd, size)

    def view(self, buf: Buffer) -> torch.Tensor:
        """A CPU tensor over the BUF's bytes (writes go to the shared memory)."""
        _check_bounds(buf, self.id, self.size)
        span = buf.span_bytes
        if span == 0:
            return torch.empty_strided(buf.shape, buf.strides, dtype=buf.torch_dtype)
        window = memoryview(self._mapping)[buf.offset:buf.offset + span]
        return _typed(torch.frombuffer(window, dtype=torch.uint8), buf)

    def close(self) -> None:
        """Unmaps and closes the fd; raises RuntimeError while a view is alive."""
        try:
            self._mapping.close()
        except BufferError:
            raise RuntimeError(f"host arena {self.id} is still viewed by a tensor; drop every view first") from None
        os.close(self.fd)


class _DeviceBytes:
    """A range of device memory as __cuda_array_interface__ bytes; counts itself as a live view."""

    def __init__(self, arena: "CudaArena", address: int, size: int) -> None:
        self._arena = arena
        arena.live_views += 1
        self.__cuda_array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (address, False), "version": 2}

    def __del__(self) -> None:
        self._arena.live_views -= 1


class CudaArena:
    """Device memory of one GPU: a VMM allocation mapped read-write at an address of its own."""

    kind = "cuda"

    def __init__(self, arena_id: int, handle: int, size: int, device_index: int, fd: Optional[int]) -> None:
        self.id, self.size, self.device_index, self.fd = arena_id, size, device_index, fd
        self._handle = handle
        self.address = vmm.map_read_write(handle, size, device_index)
        self.live_views = 0

    @staticmethod
    def create(arena_id: int, size: int, device_index: int) -> "CudaArena":
        """The judge's side: a new allocation of at least `size` bytes (rounded up to the device's
        granularity), mapped here and exported as `fd` (sent to runners; closed by close())."""
        _make_context_current(device_index)
        rounded = round_up(max(size, 1), vmm.granularity(device_index))
        handle = vmm.create(rounded, device_index)
        try:
            fd = vmm.export_fd(handle)
        except vmm.CudaDriverError:
            vmm.release(handle)
            raise
        try:
            return CudaArena(arena_id, handle, rounded, device_index, fd)
        except BaseException:
            os.close(fd)
            vmm.release(handle)
            raise

    @staticmethod
    def attach(arena_id: int, fd: int, size: int, device_index: int) -> "CudaArena":
        """The runner's side: imports a received fd (closed here once imported) and maps `size`
        bytes of it, rounded up to the granularity as the judge rounded them, on its device."""
        try:
            _make_context_current(device_index)
            rounded = round_up(max(size, 1), vmm.granularity(device_index))
            handle = vmm.import_fd(fd)
        finally:
            os.close(fd)
        try:
            return CudaArena(arena_id, handle, rounded, device_index, None)
        except BaseException:
            vmm.release(handle)
            raise

    def view(self, buf: Buffer) -> torch.Tensor:
        """A tensor on cuda:<device_index> over the BUF's bytes (no copy)."""
        _check_bounds(buf, self.id, self.size)
        span = buf.span_bytes
        device = torch.device("cuda", self.device_index)
        if span == 0:
            return torch.empty_strided(buf.shape, buf.strides, dtype=buf.torch_dtype, device=device)
        raw = torch.as_tensor(_DeviceBytes(self, self.address + buf.offset, span), device=device)
        if raw.data_ptr() != self.address + buf.offset:
            raise RuntimeError(f"torch copied CUDA arena {self.id} instead of viewing it")
        return _typed(raw, buf)

    def close(self) -> None:
        """Unmaps and releases the allocation (and closes the exported fd); raises RuntimeError
        while a view is alive."""
        if self.live_views:
            raise RuntimeError(f"CUDA arena {self.id} is still viewed by {self.live_views} tensor(s); drop them first")
        vmm.unmap(self.address, self.size)
        vmm.release(self._handle)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


Arena = Union[HostArena, CudaArena]


def _make_context_current(device_index: int) -> None:
    torch.cuda.set_device(device_index)
    torch.cuda.synchronize(device_index)  # a runtime call: the primary context exists and is current
    if not vmm.has_current_context():
        raise RuntimeError(f"no CUDA context is current for cuda:{device_index}")


def round_up(n: int, step: int) -> int:
    """n rounded up to a multiple of step."""
    return (n + step - 1) // step * step


class ArenaTable:
    """The arenas one process knows, by id; resolves BUF and ARG JSON to tensors and values."""

    def __init__(self) -> None:
        self._arenas: Dict[int, Arena] = {}

    def add(self, arena: Arena) -> None:
        """Adds a created or attached arena; raises BadBuffer when its id is taken."""
        if arena.id in self._arenas:
            raise BadBuffer(f"arena {arena.id} is already mapped")
        self._arenas[arena.id] = arena

    def get(self, arena_id: int) -> Arena:
        """The arena of an id; raises BadBuffer when it is not mapped."""
        if arena_id not in self._arenas:
            known = ", ".join(str(k) for k in sorted(self._arenas)) or "none"
            raise BadBuffer(f"arena {arena_id} is not mapped (mapped: {known})")
        return self._arenas[arena_id]

    def tensor(self, obj) -> torch.Tensor:
        """The tensor a BUF object names."""
        buf = Buffer.from_json(obj)
        return self.get(buf.arena).view(buf)

    def value(self, obj):
        """The value an ARG object names: a tensor view, or an int, float or bool."""
        if not isinstance(obj, dict) or obj.get("kind") not in ("tensor", "int", "float", "bool"):
            raise BadBuffer(f"an ARG must be an object with kind tensor, int, float or bool, not {obj!r}")
        kind, v = obj["kind"], obj.get("value")
        if kind == "tensor":
            return self.tensor(obj.get("buf"))
        if kind == "bool" and isinstance(v, bool):
            return v
        if kind == "int" and _is_int(v):
            return v
        if kind == "float" and (isinstance(v, (int, float)) and not isinstance(v, bool) or v in _NON_FINITE):
            return _NON_FINITE[v] if isinstance(v, str) else float(v)
        raise BadBuffer(f"ARG of kind {kind} has value {v!r}")

    def close(self) -> None:
        """Closes every arena (views must be gone); the first failure is raised after trying all."""
        failure = None
        for arena in self._arenas.values():
            try:
                arena.close()
            except (RuntimeError, OSError) as exc:
                failure = failure or exc
        self._arenas.clear()
        if failure:
            raise failure


class Layout:
    """The judge's plan of one arena: place() hands out aligned, non-overlapping BUFs; `size` is
    then the arena size to create."""

    def __init__(self, arena_id: int, alignment: int = ALIGNMENT) -> None:
        self.arena_id, self.alignment, self.size = arena_id, alignment, 0

    def place(self, dtype: torch.dtype, shape: Sequence[int], strides: Optional[Sequence[int]] = None) -> Buffer:
        """The next buffer (row-major unless `strides`, in elements, are given), ALIGNMENT-aligned."""
        shape = tuple(int(n) for n in shape)
        strides = tuple(int(s) for s in strides) if strides is not None else contiguous_strides(shape)
        buf = Buffer(self.arena_id, round_up(self.size, self.alignment), dtype_name(dtype), shape, strides)
        self.size = buf.offset + buf.span_bytes
        return buf

    def guard_before(self, nbytes: int) -> Buffer:
        """`nbytes` ending exactly where the next place() will start (no gap a write could hide in)."""
        start = round_up(self.size + nbytes, self.alignment) - nbytes
        buf = Buffer(self.arena_id, start, "uint8", (nbytes,), (1,))
        self.size = start + nbytes
        return buf

    def guard_after(self, nbytes: int) -> Buffer:
        """`nbytes` starting exactly where the last placed buffer ends."""
        buf = Buffer(self.arena_id, self.size, "uint8", (nbytes,), (1,))
        self.size += nbytes
        return buf


def element_bytes(t: torch.Tensor) -> torch.Tensor:
    """A tensor's elements as raw bytes, one row per element (bit-for-bit comparisons: a NaN equals
    itself, -0.0 does not equal 0.0)."""
    return t.detach().contiguous().reshape(-1).view(torch.uint8).view(-1, t.element_size())


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape and the same bits in every element."""
    return a.shape == b.shape and bool(torch.equal(element_bytes(a), element_bytes(b)))


def tensor_arg(buf: Buffer) -> dict:
    """The ARG JSON of a tensor argument."""
    return {"kind": "tensor", "buf": buf.to_json()}


def scalar_arg(value: Union[bool, int, float]) -> dict:
    """The ARG JSON of a scalar argument (non-finite floats as "nan"/"inf"/"-inf")."""
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": value}
    v = float(value)
    if not math.isfinite(v):
        return {"kind": "float", "value": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
    return {"kind": "float", "value": v}
