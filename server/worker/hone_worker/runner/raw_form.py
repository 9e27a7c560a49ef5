"""The raw form (server/include/hone.h): the library dlopen'ed through hone_worker/abi.py, its
hone_raw_forward called with the arguments and the judge's output buffers."""
import os
from typing import Sequence

import torch

from ..abi import ArgBlock, RawLibrary
from ..devices import Device
from ..errors import KernelError
from .errors import RunnerError, bad_request, load_error
from .forms import Candidate, LoadSpec


class RawCandidate(Candidate):
    form = "raw"
    writes_outputs = True

    def __init__(self, library: RawLibrary, device: Device) -> None:
        self._library, self._device = library, device
        self.declared = library.signature()

    def bind(self, args: Sequence, outputs: Sequence[torch.Tensor]):
        try:
            block = ArgBlock(list(args) + list(outputs))
        except KernelError as exc:
            raise bad_request(exc.message) from None
        stream = torch.cuda.current_stream(self._device.index).cuda_stream if self._device.is_cuda else 0
        library = self._library

        def run() -> None:
            code, message = library.forward(block, stream)
            if code == 2:
                raise RunnerError("launch_error", f"CUDA launch error in forward: {message}",
                                  cuda_error=message.split(":")[0] or None)
            if code != 0:
                raise RunnerError("forward_error", f"forward failed: {message or f'error code {code}'}")

        return run


def load(spec: LoadSpec, device: Device) -> RawCandidate:
    if not os.path.isfile(spec.library):
        raise load_error(f"kernel library not found: {spec.library}")
    try:
        return RawCandidate(RawLibrary(spec.library), device)
    except KernelError as exc:
        raise load_error(exc.message) from None
