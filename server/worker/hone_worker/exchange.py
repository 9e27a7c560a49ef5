"""The memory one check shares with its candidate processes (hone_worker.arena): regions of
buffers in arenas the judge creates (host memfds on the CPU, CUDA VMM allocations on a GPU, a
registered host word for the release flag), their BUF/ARG JSON, and the judge's own views of
them. The judge writes inputs and poison there before a call and copies outputs out right after
the reply; it compares only its copies. Used by one check on the judge's main thread."""
import fcntl
import gc
import mmap
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import torch

from .arena import Buffer, CudaArena, HostArena, Layout, round_up, scalar_arg, tensor_arg
from .devices import Device

TensorSpec = Tuple[torch.dtype, Sequence[int], Optional[Sequence[int]]]  # dtype, shape, strides (None: contiguous)


@dataclass
class Guard:
    """Bytes right before or after a buffer of a region, which nothing may write."""

    buffer: int  # the index of the buffer it borders
    after: bool
    view: torch.Tensor


@dataclass
class Region:
    """Buffers placed in one arena, with the judge's views of them (and of the guards around
    them, for a region made with guard bytes)."""

    arena_id: int
    buffers: List[Buffer]
    views: List[torch.Tensor]
    guards: List[Guard] = field(default_factory=list)

    def bufs(self) -> List[dict]:
        return [b.to_json() for b in self.buffers]


class SharedMemory:
    """The arenas of one check; closed when the check ends (the candidate processes keep their
    own mappings until they exit)."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._arenas: Dict[int, object] = {}
        self._registered: Set[int] = set()
        self._regions: List[Region] = []
        self._mapped: Dict[int, Set[int]] = {}  # process pid -> arena ids it has mapped

    def region(self, specs: Sequence[TensorSpec], host: bool = False, guard_bytes: int = 0) -> Region:
        """A new arena holding one buffer per spec (on the device unless `host`); with
        `guard_bytes`, that many bytes right before and right after each buffer are guards."""
        arena_id = len(self._arenas)
        layout = Layout(arena_id)
        buffers, guard_bufs = [], []
        for k, (dtype, shape, strides) in enumerate(specs):
            if guard_bytes:
                guard_bufs.append((k, False, layout.guard_before(guard_bytes)))
            buffers.append(layout.place(dtype, shape, strides))
            if guard_bytes:
                guard_bufs.append((k, True, layout.guard_after(guard_bytes)))
        if self.device.is_cuda and not host:
            arena = CudaArena.create(arena_id, layout.size, self.device.index)
        else:
            arena = _sealed_host_arena(arena_id, layout.size)
        self._arenas[arena_id] = arena
        region = Region(arena_id, buffers, [arena.view(b) for b in buffers],
                        [Guard(k, after, arena.view(b)) for k, after, b in guard_bufs])
        self._regions.append(region)
        return region

    def release_word(self) -> Region:
        """A registered host arena holding the 32-bit release word of device-mode timing."""
        region = self.region([(torch.int32, [1], None)], host=True)
        self._registered.add(region.arena_id)
        region.views[0].zero_()
        return region

    def map_request(self, pid: int, regions: Sequence[Region]) -> Tuple[List[dict], List[int]]:
        """The `map` op's arenas and fds for the regions that process `pid` has not mapped yet
        (both empty when it has them all). Call mapped() once the runner accepted them."""
        known = self._mapped.setdefault(pid, set())
        entries, fds = [], []
        for arena_id in sorted({r.arena_id for r in regions} - known):
            arena = self._arenas[arena_id]
            entries.append({"arena": arena_id, "kind": arena.kind, "bytes": arena.size,
                            "register": arena_id in self._registered})
            fds.append(arena.fd)
        return entries, fds

    def mapped(self, pid: int, entries: Sequence[dict]) -> None:
        self._mapped.setdefault(pid, set()).update(e["arena"] for e in entries)

    def synchronize(self) -> None:
        """What the judge wrote is in memory before a runner reads it."""
        self.device.synchronize()

    def close(self) -> None:
        """Releases the check's arenas. One still viewed (a tensor alive in a traceback, or in a
        caller's frame) is kept and released by the next close, so the long-lived judge never
        accumulates them: on the H200 each check's output slots alone are up to 8 GiB."""
        self._regions.clear()
        pending = list(self._arenas.values()) + _UNRELEASED
        self._arenas.clear()
        _UNRELEASED.clear()
        still_viewed = _close_all(pending)
        if still_viewed:  # views held only by reference cycles: a full collection (40-80 ms with
            gc.collect()  # torch loaded, so only when needed) frees them
            _UNRELEASED.extend(_close_all(still_viewed))


def _close_all(arenas: List[object]) -> List[object]:
    """Closes each arena; returns the ones that could not be closed (a view still alive)."""
    failed = []
    for arena in arenas:
        try:
            arena.close()
        except (RuntimeError, OSError):
            failed.append(arena)
    return failed


# Arenas whose views outlived their check's close; retried at every later close.
_UNRELEASED: List[object] = []


def _sealed_host_arena(arena_id: int, size: int) -> HostArena:
    """A host arena whose memfd cannot shrink or grow: a candidate process that truncated it
    would make the judge's own mapping fault (SIGBUS) when it copies outputs out."""
    fd = os.memfd_create(f"hone-arena-{arena_id}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        rounded = round_up(max(size, 1), mmap.PAGESIZE)
        os.ftruncate(fd, rounded)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        return HostArena(arena_id, fd, rounded)
    except BaseException:
        os.close(fd)
        raise


def args_json(buffers: Sequence[Optional[Buffer]], values: Sequence) -> List[dict]:
    """ARG JSON for forward's arguments: tensors by their buffer, scalars by value."""
    return [tensor_arg(b) if b is not None else scalar_arg(v) for b, v in zip(buffers, values)]


def arg_specs(values: Sequence) -> List[TensorSpec]:
    """Buffer specs for the tensor arguments among `values`, keeping their strides (contiguous
    for a tensor whose elements overlap, such as an expand: it cannot be written in place)."""
    specs = []
    for v in values:
        if isinstance(v, torch.Tensor):
            overlapping = v.numel() > 1 and torch._debug_has_internal_overlap(v) == 1
            strides = None if overlapping or any(s < 0 for s in v.stride()) else list(v.stride())
            specs.append((v.dtype, list(v.shape), strides))
    return specs


class ArgBuffers:
    """Forward's arguments in a region: tensors in its buffers, scalars as values."""

    def __init__(self, memory: SharedMemory, values: Sequence) -> None:
        self.region = memory.region(arg_specs(values))
        self.buffers: List[Optional[Buffer]] = []
        self.views: List[Optional[torch.Tensor]] = []
        k = 0
        for v in values:
            if isinstance(v, torch.Tensor):
                self.buffers.append(self.region.buffers[k])
                self.views.append(self.region.views[k])
                k += 1
            else:
                self.buffers.append(None)
                self.views.append(None)
        self.values = list(values)

    def fits(self, values: Sequence) -> bool:
        return len(values) == len(self.views) and all(
            (view is None and not isinstance(v, torch.Tensor)) or
            (view is not None and isinstance(v, torch.Tensor) and view.shape == v.shape and view.dtype == v.dtype)
            for view, v in zip(self.views, values))

    @torch.no_grad()
    def write(self, values: Sequence) -> None:
        """Puts `values` (the judge's private tensors) into the shared buffers."""
        for view, v in zip(self.views, values):
            if view is not None:
                view.copy_(v)
        self.values = list(values)

    def json(self) -> List[dict]:
        return args_json(self.buffers, self.values)

    def shared(self) -> list:
        """The arguments as the candidate sees them: the shared views, and the scalars."""
        return [view if view is not None else v for view, v in zip(self.views, self.values)]
