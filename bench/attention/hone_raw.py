"""Building a raw-form kernel with `hone build --json` and calling it from torch through the raw
ABI of server/include/hone.h (ArgDesc, hone_raw_forward): how benchmark.py times hone's kernels
with the same clock as every other contender. Tensor arguments only."""
import ctypes
import json
import subprocess
from typing import List, Sequence

import torch

MAX_DIMS = 8  # hone::kMaxDims
DTYPE_CODES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}  # hone::DType


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


def build(hone: str, kernel: str, flags: Sequence[str] = ()) -> dict:
    """`hone build KERNEL --json` (with --flag=F for each flag): the build report; raises
    RuntimeError with the diagnostics when it did not build."""
    cmd = [hone, "build", kernel, "--json"] + [f"--flag={f}" for f in flags]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"{' '.join(cmd)} printed no JSON (exit {run.returncode}): {run.stderr[-2000:]}") from None
    if not report.get("compile", {}).get("ok"):
        messages = [d.get("message", "") for d in report.get("compile", {}).get("diagnostics", [])]
        raise RuntimeError(f"{kernel} did not build: {report.get('outcome')}: {'; '.join(messages)[:2000]}")
    return report


class RawKernel:
    """A built raw-form library; calling it runs forward(inputs..., outputs..., stream) on the
    current CUDA stream."""

    def __init__(self, library: str) -> None:
        self._lib = ctypes.CDLL(library, mode=ctypes.RTLD_LOCAL)
        self._forward = self._lib.hone_raw_forward
        self._forward.restype = ctypes.c_int32
        self._forward.argtypes = [ctypes.POINTER(ArgDesc), ctypes.c_int32, ctypes.c_void_p, ctypes.c_char_p,
                                  ctypes.c_int32]
        self._error = ctypes.create_string_buffer(4096)

    def bind(self, tensors: List[torch.Tensor]):
        """A function of no arguments calling forward on these tensors (inputs, then outputs)."""
        descs = (ArgDesc * len(tensors))()
        for d, t in zip(descs, tensors):
            d.data, d.kind, d.dtype, d.ndim = t.data_ptr(), 0, DTYPE_CODES[t.dtype], t.dim()
            for i in range(t.dim()):
                d.sizes[i], d.strides[i] = t.shape[i], t.stride(i)

        def call():
            stream = torch.cuda.current_stream().cuda_stream
            code = self._forward(descs, len(tensors), ctypes.c_void_p(stream), self._error, len(self._error))
            if code != 0:
                raise RuntimeError(f"hone_raw_forward failed ({code}): {self._error.value.decode(errors='replace')}")
        call.keep_alive = (descs, tensors)
        return call
