"""The raw-form kernel ABI of server/include/hone.h, mirrored with ctypes: ArgDesc, the dtype
numbering, and the library's exported entry points."""
import ctypes
from typing import List, Sequence

import torch

from .errors import KernelError

MAX_DIMS = 8  # hone::kMaxDims

# hone::DType, in hone.h's order.
DTYPE_CODES = {
    torch.float32: 0,
    torch.float16: 1,
    torch.bfloat16: 2,
    torch.float64: 3,
    torch.int32: 4,
    torch.int64: 5,
    torch.int16: 6,
    torch.int8: 7,
    torch.uint8: 8,
    torch.bool: 9,
}

# hone::ArgKind
KIND_TENSOR, KIND_INT, KIND_FLOAT, KIND_BOOL = 0, 1, 2, 3


class ArgDesc(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("sizes", ctypes.c_int64 * MAX_DIMS),
        ("strides", ctypes.c_int64 * MAX_DIMS),
    ]


class ArgBlock:
    """An ArgDesc array for one set of arguments, plus the scalar storage it points at. It keeps
    the tensors alive; their contents may change between calls."""

    def __init__(self, values: Sequence) -> None:
        self._values = list(values)
        self._scalars: List[ctypes._SimpleCData] = []
        self.descs = (ArgDesc * max(1, len(values)))()
        self.count = len(values)
        for i, v in enumerate(values):
            self._fill(self.descs[i], v, i)

    def _fill(self, d: ArgDesc, v, index: int) -> None:
        if isinstance(v, torch.Tensor):
            if v.dtype not in DTYPE_CODES:
                raise KernelError(f"argument {index + 1} has dtype {v.dtype}, which the raw form does not support")
            if v.dim() > MAX_DIMS:
                raise KernelError(f"argument {index + 1} has {v.dim()} dimensions; the raw form supports up to {MAX_DIMS}")
            d.data = v.data_ptr()
            d.kind, d.dtype, d.ndim = KIND_TENSOR, DTYPE_CODES[v.dtype], v.dim()
            for k in range(v.dim()):
                d.sizes[k] = v.shape[k]
                d.strides[k] = v.stride(k)
            return
        if isinstance(v, bool):
            box, d.kind = ctypes.c_uint8(1 if v else 0), KIND_BOOL
        elif isinstance(v, int):
            box, d.kind = ctypes.c_int64(v), KIND_INT
        else:
            box, d.kind = ctypes.c_double(float(v)), KIND_FLOAT
        self._scalars.append(box)
        d.data = ctypes.cast(ctypes.pointer(box), ctypes.c_void_p)
        d.dtype, d.ndim = -1, 0


class RawLibrary:
    """A loaded raw-form kernel library: hone_raw_signature() and hone_raw_forward()."""

    ERROR_BYTES = 4096

    def __init__(self, path: str) -> None:
        try:
            self._lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        except OSError as exc:
            raise KernelError(f"cannot load kernel library {path}: {exc}") from None
        missing = [s for s in ("hone_abi_version", "hone_raw_signature", "hone_raw_forward") if not hasattr(self._lib, s)]
        if missing:
            raise KernelError(
                f"{path} is not a raw-form hone kernel (no {', '.join(missing)}); was it built by `hone build` "
                "from a file with void forward(hone::In<...>..., hone::Out<...>...)?"
            )
        self._lib.hone_abi_version.restype = ctypes.c_int32
        version = self._lib.hone_abi_version()
        if version != 1:
            raise KernelError(f"{path} uses hone raw ABI version {version}; this worker speaks version 1")
        self._lib.hone_raw_signature.restype = ctypes.c_char_p
        self._forward = self._lib.hone_raw_forward
        self._forward.restype = ctypes.c_int32
        self._forward.argtypes = [ctypes.POINTER(ArgDesc), ctypes.c_int32, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32]
        self._error = ctypes.create_string_buffer(self.ERROR_BYTES)

    def signature(self) -> str:
        return self._lib.hone_raw_signature().decode()

    @property
    def forward_address(self) -> int:
        """hone_raw_forward's address, for callers that call it from C (bench/timing_truth's events)."""
        return ctypes.cast(self._forward, ctypes.c_void_p).value

    def forward(self, block: ArgBlock, stream: int) -> tuple:
        """Calls hone_raw_forward; returns (code, message): 0 ok, 1 error, 2 CUDA launch error."""
        self._error[0] = b"\0"
        code = self._forward(block.descs, block.count, ctypes.c_void_p(stream or None), self._error, self.ERROR_BYTES)
        return code, self._error.value.decode(errors="replace")
