"""The device a request runs on: parsing "cpu"/"cuda[:N]"/"meta", creating tensors on it,
seeding, synchronising, and telling whether a CUDA error has poisoned the context."""
import contextlib
import random
from dataclasses import dataclass
from typing import Iterator

import torch
from torch.overrides import TorchFunctionMode

from .errors import BadRequest, Unsupported

# Factory functions that take a `device` keyword; used only where torch has no device context
# manager (torch < 2.0), to place what a task creates.
_FACTORIES = (
    torch.empty, torch.empty_strided, torch.zeros, torch.ones, torch.full, torch.rand,
    torch.randn, torch.randint, torch.randperm, torch.arange, torch.linspace, torch.logspace,
    torch.eye, torch.tensor, torch.as_tensor, torch.normal, torch.tril_indices, torch.triu_indices,
)


class _FactoryDevice(TorchFunctionMode):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.device = device

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in _FACTORIES and kwargs.get("device") is None:
            kwargs["device"] = self.device
        return func(*args, **kwargs)


@dataclass(frozen=True)
class Device:
    """Where tensors live and kernels run; one per worker in practice, named in every request."""

    kind: str  # "cpu", "cuda" or "meta" (shapes only)
    index: int = 0

    @property
    def torch(self) -> torch.device:
        return torch.device(self.kind, self.index) if self.kind == "cuda" else torch.device(self.kind)

    @property
    def is_cuda(self) -> bool:
        return self.kind == "cuda"

    def __str__(self) -> str:
        return f"cuda:{self.index}" if self.is_cuda else self.kind

    @contextlib.contextmanager
    def placement(self) -> Iterator[None]:
        """Tensors created by task code inside this block are created on this device."""
        if self.is_cuda:
            torch.cuda.set_device(self.index)
        if hasattr(torch.device, "__enter__"):
            with self.torch:
                yield
        elif self.kind == "cpu":
            yield
        else:
            with _FactoryDevice(self.torch):
                yield

    def seed(self, seed: int) -> None:
        """Seeds every generator a task may draw from (inputs and weights are functions of it)."""
        random.seed(seed)
        torch.manual_seed(seed)
        if self.is_cuda:
            torch.cuda.manual_seed_all(seed)
        try:
            import numpy

            numpy.random.seed(seed % (2**32))
        except ImportError:
            pass

    def synchronize(self) -> None:
        """Waits for all work on every stream of the device (raises on a CUDA error)."""
        if self.is_cuda:
            torch.cuda.synchronize(self.index)

    def context_broken(self) -> bool:
        """True when the CUDA context no longer works (a sticky error such as an illegal address)."""
        if not self.is_cuda:
            return False
        try:
            torch.cuda.synchronize(self.index)
            probe = torch.ones(1, device=self.torch)
            return float((probe + 1).item()) != 2.0
        except Exception:  # noqa: BLE001 - any failure means the context is unusable
            return True


CACHE_KEPT_BYTES = 1 << 30  # cached CUDA memory the judge keeps between requests


def release_cached_memory() -> None:
    """Gives the judge's cached CUDA blocks back to the driver (after a request, and in a timing
    run once its large copies are dropped) when they exceed CACHE_KEPT_BYTES. torch's caching
    allocator keeps what a check's input sets, reference outputs and copies took (GiBs for a
    KernelBench level-1 task): the long-lived judge would hold them while the next check's shared
    arenas (cuMemCreate) and its candidate processes, which cannot use that cache, run out of
    memory (2 of 141 GiB free on the H200 after three such tasks)."""
    if not torch.cuda.is_initialized():  # nothing of CUDA used yet (and no driver call to ask)
        return
    for index in range(torch.cuda.device_count()):
        if torch.cuda.memory_reserved(index) - torch.cuda.memory_allocated(index) > CACHE_KEPT_BYTES:
            with torch.cuda.device(index):
                torch.cuda.empty_cache()


def parse_device(spec) -> Device:
    """Device named by a request ("cpu", "cuda", "cuda:1", "meta"); Unsupported if absent here."""
    if not isinstance(spec, str) or not spec:
        raise BadRequest("params.device must be a string such as \"cpu\" or \"cuda:0\"")
    kind, _, index = spec.partition(":")
    if kind in ("cpu", "meta") and not index:
        return Device(kind)
    if kind != "cuda":
        raise BadRequest(f"unknown device {spec!r}: use cpu, cuda, cuda:N or meta")
    try:
        number = int(index) if index else 0
    except ValueError:
        raise BadRequest(f"unknown device {spec!r}: the CUDA index must be a number") from None
    if not torch.cuda.is_available():
        raise Unsupported(f"device {spec} requested, but this worker's torch {torch.__version__} sees no CUDA device")
    if number >= torch.cuda.device_count():
        raise Unsupported(f"device {spec} requested, but only {torch.cuda.device_count()} CUDA device(s) are visible")
    return Device("cuda", number)
