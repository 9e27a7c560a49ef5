"""The `time` op (protocol/WORKER.md, candidate protocol; issue 14): settle the device with
warm-up calls until two 5 ms windows agree, run the warm-up calls, then time each scheduled call
after putting its input set (and mixed rows) in the targets and flushing the cache. Mode `call`:
CUDA events with the device idle before each call (call time); mode `device`: every call enqueued
behind hone's hold kernel, released by the judge, so events bracket only GPU work (device time).
CPU: the steady host clock. Flush, hold and registration are libhone_harness.so's."""
import statistics
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import torch

from ..arena import ArenaTable, BadBuffer, Buffer
from .errors import RunnerError, bad_request, unsupported
from .forms import Candidate
from .harness import Harness
from .returned import copy_into, returned_tensors

SETTLE_WINDOW_S = 0.005
SETTLE_AGREEMENT = 0.02  # successive windows' median call times agree within this share
IN_FLIGHT = 2  # settle calls queued ahead of the one the host waits for


@dataclass
class _Entry:
    set: int
    slot: int
    rows: List[tuple]  # (arg index, row, donor set)


@dataclass
class TimePlan:
    """A validated `time` request, its buffers resolved to tensors."""

    mode: str
    targets: list
    sets: List[list]
    outputs: List[List[torch.Tensor]]
    schedule: List[_Entry]
    warmup: int
    settle_ms: float
    flush_bytes: int
    release: Optional[int]  # device address of the release word (mode device)
    spin_timeout_ms: float


def parse_plan(request: dict, table: ArenaTable, is_cuda: bool) -> TimePlan:
    """Raises RunnerError (bad_request, unsupported) or BadBuffer."""
    mode = request.get("mode")
    if mode not in ("call", "device"):
        raise bad_request(f"time.mode must be call or device, not {mode!r}")
    if mode == "device" and not is_cuda:
        raise unsupported("time mode device holds a CUDA stream; this runner's device is the CPU")
    targets = [table.value(a) for a in _list(request, "args")]
    sets = [[table.value(a) for a in _as_list(s, "time.sets[]")] for s in _list(request, "sets")]
    outputs = [[table.tensor(b) for b in _as_list(slot, "time.outputs[]")] for slot in _list(request, "outputs")]
    if not sets or not outputs:
        raise bad_request("time needs at least one input set and one output slot")
    for k, values in enumerate(sets):
        _check_set(k, values, targets)
    schedule = [_entry(e, len(sets), len(outputs), targets) for e in _list(request, "schedule")]
    release = None
    if mode == "device":
        release = _release_address(request.get("release"), table)
    return TimePlan(mode, targets, sets, outputs, schedule, _count(request, "warmup", 0),
                    _number(request, "settle_ms", 0.0), _count(request, "flush_bytes", 0), release,
                    _number(request, "spin_timeout_ms", 10_000.0))


def _list(request: dict, key: str) -> list:
    return _as_list(request.get(key, []), f"time.{key}")


def _as_list(value, what: str) -> list:
    if not isinstance(value, list):
        raise bad_request(f"{what} must be a list, not {value!r}")
    return value


def _count(request: dict, key: str, default: int) -> int:
    value = request.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise bad_request(f"time.{key} must be a non-negative integer, not {value!r}")
    return value


def _number(request: dict, key: str, default: float) -> float:
    value = request.get(key, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise bad_request(f"time.{key} must be a non-negative number, not {value!r}")
    return float(value)


def _check_set(k: int, values: list, targets: list) -> None:
    if len(values) != len(targets):
        raise bad_request(f"time.sets[{k}] has {len(values)} arguments; time.args has {len(targets)}")
    for a, (v, t) in enumerate(zip(values, targets)):
        if isinstance(t, torch.Tensor) != isinstance(v, torch.Tensor):
            raise bad_request(f"time.sets[{k}][{a}] is not the same kind of argument as time.args[{a}]")
        if isinstance(t, torch.Tensor) and (v.shape != t.shape or v.dtype != t.dtype or v.device != t.device):
            raise bad_request(f"time.sets[{k}][{a}] is {v.dtype} {list(v.shape)}; its target is {t.dtype} "
                              f"{list(t.shape)}")


def _entry(obj, n_sets: int, n_slots: int, targets: list) -> _Entry:
    if not isinstance(obj, dict):
        raise bad_request(f"a time.schedule entry must be an object, not {obj!r}")
    k, j = obj.get("set"), obj.get("slot")
    if not isinstance(k, int) or not 0 <= k < n_sets or not isinstance(j, int) or not 0 <= j < n_slots:
        raise bad_request(f"time.schedule entry {obj!r} names a set or slot that does not exist")
    rows = []
    for row in _as_list(obj.get("rows", []), "time.schedule[].rows"):
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, int) for x in row)):
            raise bad_request(f"a time.schedule row must be [arg, row, donor_set], not {row!r}")
        a, r, donor = row
        target = targets[a] if 0 <= a < len(targets) else None
        if not isinstance(target, torch.Tensor) or target.dim() == 0 or not 0 <= r < target.shape[0]:
            raise bad_request(f"time.schedule row {row!r}: argument {a} has no row {r}")
        if not 0 <= donor < n_sets:
            raise bad_request(f"time.schedule row {row!r}: there is no set {donor}")
        rows.append((a, r, donor))
    return _Entry(k, j, rows)


def _release_address(obj, table: ArenaTable) -> int:
    if obj is None:
        raise bad_request("time mode device needs time.release, a BUF in a registered host arena")
    buf = Buffer.from_json(obj)
    arena = table.get(buf.arena)
    if arena.kind != "host" or arena.device_address is None:
        raise BadBuffer(f"time.release must lie in a host arena mapped with register: true (arena {buf.arena} is not)")
    if buf.itemsize != 4 or buf.offset + 4 > arena.size:
        raise BadBuffer("time.release must be one 32-bit word inside its arena")
    return arena.device_address + buf.offset


class _Clock:
    """Brackets forward calls: CUDA events on the current stream, or the host's steady clock."""

    def __init__(self, is_cuda: bool) -> None:
        self.is_cuda = is_cuda

    def mark(self):
        if self.is_cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            return event
        return time.perf_counter_ns()

    def elapsed_us(self, pair) -> float:
        start, end = pair
        if self.is_cuda:
            return start.elapsed_time(end) * 1000.0
        return (end - start) / 1000.0


class TimedLoop:
    """One `time` op's calls on one candidate; run() returns the reply's fields."""

    def __init__(self, plan: TimePlan, candidate: Candidate, harness: Harness, device,
                 flush_buffer: Optional[torch.Tensor], sink: Optional[torch.Tensor]) -> None:
        self.plan, self.candidate, self.harness, self.device = plan, candidate, harness, device
        self.clock = _Clock(device.is_cuda)
        self._flush_buffer, self._sink = flush_buffer, sink
        self._stream = torch.cuda.current_stream(device.index).cuda_stream if device.is_cuda else 0
        self._bound = {}

    def _call(self, k: int, j: int) -> Callable[[], object]:
        key = (k, j)
        if key not in self._bound:
            args = [t if isinstance(t, torch.Tensor) else v for t, v in zip(self.plan.targets, self.plan.sets[k])]
            self._bound[key] = self.candidate.bind(args, self.plan.outputs[j])
        return self._bound[key]

    def _stage(self, entry: _Entry) -> None:
        """Copies the entry's input set into the targets, then its mixed rows."""
        for t, v in zip(self.plan.targets, self.plan.sets[entry.set]):
            if isinstance(t, torch.Tensor) and v.data_ptr() != t.data_ptr():
                t.copy_(v)
        for a, r, donor in entry.rows:
            self.plan.targets[a][r].copy_(self.plan.sets[donor][a][r])

    def _flush(self) -> None:
        if not self.plan.flush_bytes:
            return
        if self.device.is_cuda:
            self.harness.flush(self._stream, self._flush_buffer.data_ptr(), self.plan.flush_bytes,
                               self._sink.data_ptr())
        else:
            self.harness.host_flush(self._flush_buffer.data_ptr(), self.plan.flush_bytes)

    def _keep(self, result, j: int) -> None:
        if not self.candidate.writes_outputs:
            copy_into(returned_tensors(result), self.plan.outputs[j])

    def _one(self, k: int, j: int, idle_before: bool) -> tuple:
        """Flush, (device idle,) start, forward, end, copy of its result into slot j."""
        call = self._call(k, j)
        self._flush()
        if idle_before and self.device.is_cuda:
            torch.cuda.synchronize(self.device.index)
        start = self.clock.mark()
        result = call()
        end = self.clock.mark()
        self._keep(result, j)
        return start, end

    def _settle(self) -> tuple:
        """Warm-up calls until two successive windows' median times agree, or settle_ms passes."""
        started = time.perf_counter()
        deadline = started + self.plan.settle_ms / 1000.0
        previous, calls = None, 0
        while time.perf_counter() < deadline:
            pairs, window_start = [], time.perf_counter()
            while not pairs or time.perf_counter() - window_start < SETTLE_WINDOW_S:
                if self.device.is_cuda and len(pairs) >= IN_FLIGHT:
                    pairs[-IN_FLIGHT][1].synchronize()
                pairs.append(self._one(0, 0, idle_before=False))
            self.device.synchronize()
            calls += len(pairs)
            median = statistics.median(self.clock.elapsed_us(p) for p in pairs)
            if previous is not None and abs(median - previous) <= SETTLE_AGREEMENT * previous:
                return (time.perf_counter() - started) * 1000.0, calls, True
            previous = median
        return (time.perf_counter() - started) * 1000.0, calls, self.plan.settle_ms == 0

    def run(self, send_enqueued: Callable[[], None]) -> dict:
        plan = self.plan
        held = plan.mode == "device"
        for entry in plan.schedule:
            self._call(entry.set, entry.slot)
        self._stage(_Entry(0, 0, []))
        self.device.synchronize()
        first = self._call(0, 0)
        reply = dict(self.candidate.warm(lambda: self._keep(first(), 0)))
        settle_ms, settle_calls, settled = self._settle()
        warm = [self._one(0, 0, idle_before=not held) for _ in range(plan.warmup)]
        self.device.synchronize()
        timed_out = torch.zeros(1, dtype=torch.int32, device=self.device.torch) if held else None
        if held:
            self.harness.hold(self._stream, plan.release, int(plan.spin_timeout_ms * 1e6), timed_out.data_ptr())
        enqueue_started = time.perf_counter()
        pairs = []
        for entry in plan.schedule:
            self._stage(entry)
            pairs.append(self._one(entry.set, entry.slot, idle_before=not held))
        enqueue_s = time.perf_counter() - enqueue_started
        if held:
            send_enqueued()
        self.device.synchronize()
        reply.update({
            "times_us": [self.clock.elapsed_us(p) for p in pairs],
            "warmup_us": [self.clock.elapsed_us(p) for p in warm],
            "settle_ms": settle_ms, "settle_calls": settle_calls, "settled": settled, "enqueue_s": enqueue_s,
            "spin_timed_out": bool(timed_out.item()) if held else False,
            "method": ("cuda_events_held_stream" if held else "cuda_events") if self.device.is_cuda else "host_clock",
        })
        reply.update(self.candidate.after_timing())
        return reply


def flush_buffers(device, size: int, cached: Sequence) -> tuple:
    """The buffer the flush reads and the sink it writes, reused while the size stays the same."""
    if cached and cached[0] is not None and cached[0].numel() == size:
        return cached[0], cached[1]
    if size == 0:
        return None, None
    buffer = torch.ones(size, dtype=torch.uint8, device=device.torch)  # written once: every page is there
    sink = torch.zeros(64, dtype=torch.uint8, device=device.torch)
    return buffer, sink

