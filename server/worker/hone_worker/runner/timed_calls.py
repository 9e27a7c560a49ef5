"""The `time` op (protocol/WORKER.md, candidate protocol; issue 14): settle the device with
warm-up calls until two 5 ms windows agree, run the warm-up calls, then time each scheduled call
after putting its input set (and mixed rows) in the targets and flushing the cache. Mode `call`:
CUDA events with the device idle before each call (call time); mode `device`: every call enqueued
behind hone's hold kernel, released by the judge, so events bracket only GPU work (device time).
CPU: the steady host clock. Flush, hold and registration are libhone_harness.so's."""
import ctypes
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

import torch

from ..arena import ArenaTable, BadBuffer, Buffer
from .errors import bad_request, unsupported
from .forms import Candidate
from .harness import Harness
from .returned import aliases_an_argument, copy_into, overwrite_arguments, returned_tensors, span

SETTLE_WINDOW_S = 0.005
SETTLE_AGREEMENT = 0.02  # successive windows' mean call times agree within this share ...
SETTLE_AGREEMENTS = 3  # ... this many times in a row (clocks ramping from idle agree once by chance)
IN_FLIGHT = 8  # settle calls queued ahead of the device at most


MAX_MIX_SETS = 8  # libhone_harness's hone_mix takes at most this many sets


@dataclass
class _Entry:
    set: int
    slot: int
    rows: List[tuple]  # (arg index, row, donor set)
    mixed: List[int] = field(default_factory=list)  # args made from every set, element by element (hone_mix)
    mix_seed: int = 0
    overwrite: bool = False  # the arguments overwritten between forward's return and its result's copy


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
    settle_min_ms: float  # settling lasts this long at least (a cold GPU's clocks ramp slowly)
    flush_bytes: int
    release: Optional[int]  # mode device: the release word's device address
    release_host: Optional[int]  # and its host address
    spin_timeout_ms: float
    kernel_records: bool = False  # mode device: the held calls' activity records, a marker after each call
    kernel_counters: int = 0  # mode call, CUDA: gpu__time_duration of every kernel (at most this many), a marker after each call
    flush_each_kernel: bool = False  # kernel_counters: hone_flush before each of a call's kernels (ncu's), not the call


def parse_plan(request: dict, table: ArenaTable, is_cuda: bool) -> TimePlan:
    """Raises RunnerError (bad_request, unsupported) or BadBuffer. As the native runner's
    time_plan.cpp: `sets` may be empty (the targets are used as they are), so may `outputs`."""
    mode = request.get("mode")
    if mode not in ("call", "device"):
        raise bad_request(f"time.mode must be call or device, not {mode!r}")
    if mode == "device" and not is_cuda:
        raise unsupported("time mode device (a held stream) needs a CUDA device; on the CPU use mode call")
    targets = [table.value(a) for a in _list(request, "args")]
    sets = [[table.value(a) for a in _as_list(s, f"time.sets[{k}]")] for k, s in enumerate(_list(request, "sets"))]
    outputs = [[table.tensor(b) for b in _as_list(slot, f"time.outputs[{j}]")]
               for j, slot in enumerate(_list(request, "outputs"))]
    for k, values in enumerate(sets):
        _check_set(k, values, targets)
    schedule = [_entry(e, i, len(sets), len(outputs), targets) for i, e in enumerate(_list(request, "schedule"))]
    plan = TimePlan(mode, targets, sets, outputs or [[]], schedule, _count(request, "warmup", 0, 1_000_000),
                    _number(request, "settle_ms", 0.0, 0.0, 600_000.0), _number(request, "settle_min_ms", 0.0, 0.0, 600_000.0),
                    _count(request, "flush_bytes", 0, 1 << 40),
                    None, None, _number(request, "spin_timeout_ms", 10_000.0, 1e-3, 120_000.0))
    records = request.get("kernel_records", False)
    if not isinstance(records, bool):
        raise bad_request(f"time.kernel_records must be true or false, not {records!r}")
    if records and mode != "device":
        raise bad_request("time.kernel_records needs mode device (the records of held calls)")
    plan.kernel_records = records
    plan.kernel_counters = _count(request, "kernel_counters", 0, 4096)
    if plan.kernel_counters and mode != "call":
        raise bad_request("time.kernel_counters needs mode call (the Range Profiler replays each kernel: it cannot "
                          "hold a stream)")
    if plan.kernel_counters and not is_cuda:
        raise unsupported("time.kernel_counters needs a CUDA device (hardware counters)")
    each = request.get("flush_each_kernel", False)
    if not isinstance(each, bool):
        raise bad_request(f"time.flush_each_kernel must be true or false, not {each!r}")
    if each and not (plan.kernel_counters and plan.flush_bytes):
        raise bad_request("time.flush_each_kernel needs kernel_counters and flush_bytes (it flushes before each "
                          "counted kernel)")
    plan.flush_each_kernel = each
    if mode == "device":
        plan.release, plan.release_host = _release_word(request.get("release"), table)
        _require_device_memory(plan)
    return plan


def _list(request: dict, key: str) -> list:
    return _as_list(request.get(key, []), f"time.{key}")


def _as_list(value, what: str) -> list:
    if not isinstance(value, list):
        raise bad_request(f"{what} must be a list, not {value!r}")
    return value


def _count(request: dict, key: str, default: int, most: int) -> int:
    value = request.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise bad_request(f"time.{key} must be an integer in 0..{most}, not {value!r}")
    return value


def _number(request: dict, key: str, default: float, least: float, most: float) -> float:
    value = request.get(key, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not least <= value <= most:
        raise bad_request(f"time.{key} must be a number in {least:g}..{most:g}, not {value!r}")
    return float(value)


def _check_set(k: int, values: list, targets: list) -> None:
    if len(values) != len(targets):
        raise bad_request(f"time.sets[{k}] has {len(values)} ARGs; time.args has {len(targets)}")
    for a, (v, t) in enumerate(zip(values, targets)):
        if isinstance(t, torch.Tensor) != isinstance(v, torch.Tensor):
            raise bad_request(f"time.sets[{k}][{a}]: a tensor in one and a scalar in the other")
        if isinstance(t, torch.Tensor) and (v.shape != t.shape or v.stride() != t.stride() or v.dtype != t.dtype
                                            or v.device != t.device):
            raise bad_request(f"time.sets[{k}][{a}]: dtype, shape, strides or device differ from time.args[{a}]")


def _entry(obj, i: int, n_sets: int, n_slots: int, targets: list) -> _Entry:
    where = f"time.schedule[{i}]"
    if not isinstance(obj, dict):
        raise bad_request(f"{where} must be an object, not {obj!r}")
    k, j = obj.get("set", 0), obj.get("slot", 0)
    if not _is_index(k, max(n_sets, 1)) or not _is_index(j, max(n_slots, 1)):
        raise bad_request(f"{where} names set {k!r} or slot {j!r}, which do not exist ({n_sets} sets, {n_slots} slots)")
    rows = []
    for row in _as_list(obj.get("rows", []), f"{where}.rows"):
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, int) for x in row)):
            raise bad_request(f"{where}.rows: expected [arg, row, donor_set], not {row!r}")
        a, r, donor = row
        target = targets[a] if 0 <= a < len(targets) else None
        if not isinstance(target, torch.Tensor) or target.dim() == 0 or not 0 <= r < target.shape[0]:
            raise bad_request(f"{where}.rows: argument {a} has no row {r}")
        if not _is_index(donor, n_sets):
            raise bad_request(f"{where}.rows: there is no donor set {donor} ({n_sets} sets)")
        rows.append((a, r, donor))
    mixed, seed = _mix(obj.get("mix"), where, n_sets, targets)
    overwrite = obj.get("overwrite_arguments", False)
    if not isinstance(overwrite, bool):
        raise bad_request(f"{where}.overwrite_arguments must be true or false, not {overwrite!r}")
    return _Entry(k, j, rows, mixed, seed, overwrite)


def _mix(obj, where: str, n_sets: int, targets: list) -> tuple:
    """An entry's "mix": {"seed", "args"}: (the args, the seed); those contiguous tensor targets
    are made from every set (time_plan.cpp's parse_mix)."""
    if obj is None:
        return [], 0
    if not isinstance(obj, dict):
        raise bad_request(f"{where}.mix must be an object {{\"seed\", \"args\"}}, not {obj!r}")
    seed = obj.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= 0xFFFFFFFF:
        raise bad_request(f"{where}.mix.seed must be a 32-bit unsigned integer, not {seed!r}")
    if not 1 <= n_sets <= MAX_MIX_SETS:
        raise bad_request(f"{where}.mix: a mix needs 1 to {MAX_MIX_SETS} input sets, not {n_sets}")
    mixed: List[int] = []
    for a in _as_list(obj.get("args"), f"{where}.mix.args"):
        target = targets[a] if _is_index(a, len(targets)) else None
        if not isinstance(target, torch.Tensor) or not target.is_contiguous():
            raise bad_request(f"{where}.mix: args[{a}] is not a contiguous tensor (only those are mixed)")
        if a in mixed:
            raise bad_request(f"{where}.mix: args[{a}] is named twice")
        mixed.append(a)
    return mixed, seed


def _is_index(v, count: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < count


def _release_word(obj, table: ArenaTable) -> tuple:
    """The release word's device and host addresses (a 32-bit element of a registered host arena)."""
    if obj is None:
        raise bad_request("time mode device needs time.release, a BUF in a registered host arena")
    buf = Buffer.from_json(obj)
    arena = table.get(buf.arena)
    count = 1
    for n in buf.shape:
        count *= n
    if arena.kind != "host" or arena.device_address is None or buf.itemsize != 4 or count != 1:
        raise BadBuffer("time.release must be one 32-bit element of a registered host arena (\"register\": true)")
    arena.view(buf)  # bounds
    return arena.device_address + buf.offset, arena.address + buf.offset


def _require_device_memory(plan: "TimePlan") -> None:
    """While the stream is held every copy must be a device-to-device one in stream order (torch
    copies host memory at once, or synchronizes), so every buffer lies in a cuda arena here."""
    tensors = [t for t in plan.targets if isinstance(t, torch.Tensor)]
    tensors += [t for s in plan.sets for t in s if isinstance(t, torch.Tensor)]
    tensors += [t for slot in plan.outputs for t in slot]
    if any(t.device.type != "cuda" for t in tensors):
        raise bad_request("time mode device (python runner) needs every argument, set and output in a cuda arena; "
                          "a registered host arena holds only the release word")


class _Clock:
    """Marks on the current stream (CUDA events) or the host's steady clock. The timed calls' events
    are made ahead (prepare()): a torch event makes its CUDA event at its first record, and the end
    mark, made between forward's return and its record, timed that making and the Python object's
    construction (with the code eviction _run_calls no longer asks for, the loop read 1.07-1.39x
    plain events in one process on the H100; 1.03-1.05x after both, bench/probes/method_probe.py,
    2026-12-06); the native runner makes its events ahead too (backend_cuda.cpp). A timed call
    goes through around(): between its two records only forward runs (mark()'s own Python -- a
    method call, the device test, the pop -- inside the window put hone's loop 0.5-0.8 us above
    the same events recorded inline, method_probe's hone_marks, H100, 2026-12-07)."""

    def __init__(self, is_cuda: bool) -> None:
        self.is_cuda = is_cuda
        self._made: List[torch.cuda.Event] = []  # made and recorded once, the next mark's last

    def prepare(self, count: int) -> None:
        """Makes the next `count` marks' events now, each recorded once on the current stream (its
        CUDA event exists from then on); the caller waits for the device before timing."""
        if self.is_cuda:
            made = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
            for event in made:
                event.record()
            self._made = made[::-1]

    def around(self, forward: Callable[[], object]) -> tuple:
        """forward() between two marks: (its result, (start, end)). Both events are taken before
        the first record, so the window holds the records and the call alone."""
        if self.is_cuda:
            start, end = self._event(), self._event()
            start.record()
            result = forward()
            end.record()
            return result, (start, end)
        start = time.perf_counter_ns()
        result = forward()
        return result, (start, time.perf_counter_ns())

    def _event(self) -> "torch.cuda.Event":
        """The next event made ahead, or a new one when prepare() made too few."""
        return self._made.pop() if self._made else torch.cuda.Event(enable_timing=True)

    def mark(self):
        if self.is_cuda:
            event = self._event()
            event.record()
            return event
        return time.perf_counter_ns()

    def wait(self, mark) -> None:
        if self.is_cuda:
            mark.synchronize()

    def elapsed_us(self, start, end) -> float:
        if self.is_cuda:
            return start.elapsed_time(end) * 1000.0
        return (end - start) / 1000.0


class TimedLoop:
    """One `time` op's calls on one candidate, in the native runner's order (time_op.cpp), so the
    two runners time alike; run() returns the reply's fields. Main thread only."""

    def __init__(self, plan: TimePlan, candidate: Candidate, harness: Optional[Harness], device,
                 flush_buffer: Optional[torch.Tensor], sink: Optional[torch.Tensor]) -> None:
        self.plan, self.candidate, self.harness, self.device = plan, candidate, harness, device
        self.clock = _Clock(device.is_cuda)
        self._flush_buffer, self._sink = flush_buffer, sink
        self._stream = torch.cuda.current_stream(device.index).cuda_stream if device.is_cuda else 0
        self._bound = {}
        self._holding = False
        self._marker_word: Optional[torch.Tensor] = None  # kernel records: hone_marker's word
        # CPU: each call's inputs written after its flush, then evicted (time_op.cpp's inputs_and_flush)
        self._inputs_after_flush = (not device.is_cuda and plan.flush_bytes > 0 and bool(plan.sets)
                                    and harness is not None and harness.host_evict(0, 0))

    def _call(self, k: int, j: int) -> Callable[[], None]:
        """Forward on set k's scalars and the targets, its result kept in slot j (bound once)."""
        key = (k, j)
        if key not in self._bound:
            scalars = self.plan.sets[k] if self.plan.sets else self.plan.targets
            args = [t if isinstance(t, torch.Tensor) else v for t, v in zip(self.plan.targets, scalars)]
            forward, outputs = self.candidate.bind(args, self.plan.outputs[j]), self.plan.outputs[j]
            if self.candidate.writes_outputs:
                self._bound[key] = (forward, None)
            else:
                self._bound[key] = (forward, lambda result: copy_into(returned_tensors(result), outputs))
        return self._bound[key]

    def _apply_inputs(self, entry: _Entry) -> None:
        """Set `entry.set` into the targets, then the entry's rows from their donor sets; the mixed
        targets are made from every set instead (hone_mix, the native runner's code)."""
        if not self.plan.sets:
            return
        for a, (t, v) in enumerate(zip(self.plan.targets, self.plan.sets[entry.set])):
            if isinstance(t, torch.Tensor) and v.data_ptr() != t.data_ptr() and a not in entry.mixed:
                t.copy_(v)
        for a, r, donor in entry.rows:
            self.plan.targets[a][r].copy_(self.plan.sets[donor][a][r])
        for a in entry.mixed:
            t, sources = self.plan.targets[a], [s[a].data_ptr() for s in self.plan.sets]
            if self.device.is_cuda:
                self.harness.mix(self._stream, t.data_ptr(), sources, t.element_size(), t.numel(), entry.mix_seed)
            else:
                self.harness.host_mix(t.data_ptr(), sources, t.element_size(), t.numel(), entry.mix_seed)

    def _flush(self, evict_code: bool) -> None:
        if not self.plan.flush_bytes:
            return
        if self.device.is_cuda:
            self.harness.flush(self._stream, self._flush_buffer.data_ptr(), self.plan.flush_bytes,
                               self._sink.data_ptr(), evict_code)
        else:
            self.harness.host_flush(self._flush_buffer.data_ptr(), self.plan.flush_bytes)

    def _evict_inputs(self) -> None:
        """CPU: the targets, just written, evicted from the caches, as cold as the flush before left
        the rest. Written after the flush (not before it, as on CUDA), a call's input is not there
        for the candidate's own threads to compute from while the runner flushes for milliseconds."""
        for t in self.plan.targets:
            reach = span(t) if isinstance(t, torch.Tensor) else None
            if reach is not None:
                _, first, end = reach
                self.harness.host_evict(first, end - first)

    def _settle(self) -> tuple:
        """Calls (set 0, slot 0) until successive 5 ms windows' mean call times agree within 2%
        SETTLE_AGREEMENTS times in a row, or settle_ms passes; returns (ms spent, calls made,
        whether they agreed)."""
        if self.plan.settle_ms <= 0:
            return 0.0, 0, False
        started = time.perf_counter()
        self._apply_inputs(_Entry(0, 0, []))
        forward, keep = self._call(0, 0)
        previous, calls, agreed = None, 0, 0
        while True:
            first, ring, n = self.clock.mark(), [None] * IN_FLIGHT, 0
            window = time.perf_counter()
            while True:
                if n >= IN_FLIGHT:
                    self.clock.wait(ring[n % IN_FLIGHT])
                result = forward()
                if keep:
                    keep(result)
                ring[n % IN_FLIGHT] = self.clock.mark()
                n += 1
                if time.perf_counter() - window >= SETTLE_WINDOW_S:
                    break
            last = self.clock.mark()
            self.device.synchronize()
            calls += n
            per_call = self.clock.elapsed_us(first, last) / n
            agree = previous is not None and abs(per_call - previous) <= SETTLE_AGREEMENT * max(per_call, previous)
            agreed = agreed + 1 if agree else 0
            previous = per_call
            spent_ms = (time.perf_counter() - started) * 1000.0
            if (agreed >= SETTLE_AGREEMENTS and spent_ms >= self.plan.settle_min_ms) or spent_ms >= self.plan.settle_ms:
                return spent_ms, calls, agreed >= SETTLE_AGREEMENTS

    def _run_calls(self, entries: Sequence[_Entry], held: bool, marked: bool = False,
                   counters: Optional["_Counters"] = None) -> List[tuple]:
        """For each call: inputs, flush (CPU: flush, then inputs, evicted), (device idle unless held),
        mark, forward, mark, (hone's marker when `marked`), result kept. The flush reads the L2
        alone before call-time calls (as plain events flush) and evicts the code too before held
        or counted calls (as ncu flushes); with `counters` flushing each kernel (the kernel
        prologue), hone_flush runs before each of the call's kernels instead of once before it."""
        each = counters is not None and counters.each_kernel
        # Counted calls only (kernel_counters asked): the timed passes hand their unasked _Counters
        # in too, and evicted the code before every call-time call until 2026-12-06.
        evict_code = held or (counters is not None and counters.most > 0)
        marks = []
        for entry in entries:
            if self._inputs_after_flush:
                self._flush(evict_code=evict_code)
                self._apply_inputs(entry)
                self._evict_inputs()
            else:
                self._apply_inputs(entry)
                if not each:
                    self._flush(evict_code=evict_code)
            if not held:
                self.device.synchronize()
            forward, keep = self._call(entry.set, entry.slot)
            if each:  # counted calls (their device time is the counters', not these marks')
                forward = _armed(counters, forward)
            result, (start, end) = self.clock.around(forward)
            if marked:  # before the result's copy: that is not the call's work
                self.harness.marker(self._stream, self._marker_word.data_ptr())
            if keep:
                # The next call's inputs put them back. A visible view of an argument is left
                # alone: the correctness trials judged it (a reference may return one).
                if entry.overwrite and self.plan.sets and not aliases_an_argument(returned_tensors(result),
                                                                                  self.plan.targets):
                    overwrite_arguments(self.plan.targets)
                keep(result)
            marks.append((start, end))
        return marks

    def _restore_last_input(self) -> None:
        """The op ends with the last call's input in the targets: put back after an overwrite,
        once the recording stopped (its hone_mix and copies are no call's, and no record's)."""
        schedule = self.plan.schedule
        if schedule and schedule[-1].overwrite and self.plan.sets:
            self._apply_inputs(schedule[-1])
            self.device.synchronize()

    def _prologue_args(self):
        """hone_harness_flush_prologue and its arguments (this op's flush buffer and sink)."""
        return self.harness.flush_prologue(self._flush_buffer.data_ptr(), self.plan.flush_bytes, self._sink.data_ptr())

    def _release_hold(self) -> None:
        if self._holding:
            ctypes.c_uint32.from_address(self.plan.release_host).value = 1
            self._holding = False

    def run(self, send_event: Callable[[str], None]) -> dict:
        """The op's reply. Mode device sends `enqueued` once every call is queued behind the hold
        and `finished` once they ran, before the activity records are collected."""
        plan, held = self.plan, self.plan.mode == "device"
        for entry in plan.schedule:
            self._call(entry.set, entry.slot)
        self.device.synchronize()
        forward, keep = self._call(0, 0)
        self._apply_inputs(_Entry(0, 0, []))
        reply = dict(self.candidate.warm(lambda: keep(forward()) if keep else forward()))
        settle_ms, settle_calls, settled = self._settle()
        warm = self._run_calls([_Entry(0, 0, [])] * plan.warmup, held=False)
        recorder = _recorder(plan.kernel_records and held)
        counters = _Counters(plan.kernel_counters, self._prologue_args() if plan.flush_each_kernel else None)
        if recorder.active or plan.kernel_counters:
            self._marker_word = torch.zeros(1, dtype=torch.int32, device=self.device.torch)
        # Made before the recording starts: its fill kernel would be a kernel outside the calls.
        timed_out = torch.zeros(1, dtype=torch.int32, device=self.device.torch) if held else None
        self.clock.prepare(2 * len(plan.schedule))  # the timed calls' events, recorded once before the recording
        self.device.synchronize()  # the warm-up and these fills done before the recording starts
        recorder.start()
        counters.start()
        started = time.perf_counter()
        try:
            if held:
                ctypes.c_uint32.from_address(plan.release_host).value = 0
                self.harness.hold(self._stream, plan.release, int(plan.spin_timeout_ms * 1e6), timed_out.data_ptr())
                self._holding = True
            timed = self._run_calls(plan.schedule, held, marked=recorder.active or counters.active, counters=counters)
            enqueue_s = time.perf_counter() - started
            if held:
                send_event("enqueued")
        except BaseException:
            self._release_hold()  # a failure while held: release the stream rather than wait for the timeout
            recorder.stop(self.device)
            counters.stop(self.device)
            raise
        self.device.synchronize()
        self._holding = False
        if held:
            send_event("finished")
        records = recorder.stop(self.device)
        reply = dict(reply, **counters.stop(self.device))
        self._restore_last_input()
        reply.update({
            "times_us": [self.clock.elapsed_us(*m) for m in timed],
            "warmup_us": [self.clock.elapsed_us(*m) for m in warm],
            "settle_ms": settle_ms, "settle_calls": settle_calls, "settled": settled, "enqueue_s": enqueue_s,
            "spin_timed_out": bool(timed_out.item()) if held else False,
            "method": ("cuda_events_held_stream" if held else "cuda_events") if self.device.is_cuda else "host_clock",
        })
        if not self.device.is_cuda:
            reply["inputs_after_flush"] = self._inputs_after_flush
        if recorder.active:
            if records is None:
                reply["kernel_records_error"] = recorder.error
            else:
                reply["activities"] = records
        reply.update(self.candidate.after_timing())
        return reply


def _armed(counters: "_Counters", forward: Callable[[], object]) -> Callable[[], object]:
    """forward with the flush before each of its kernels armed while it runs."""

    def call():
        counters.arm(True)
        try:
            return forward()
        finally:
            counters.arm(False)

    return call


def _recorder(active: bool):
    """The held calls' activity records: libhone_cupti's (the native runner's code) where it was
    loaded before torch, else torch.profiler's."""
    from . import cupti  # noqa: PLC0415

    return _CuptiRecorder(active) if not cupti.unavailable() else _Recorder(active)


class _CuptiRecorder:
    """libhone_cupti's activity trace around the held calls, when asked."""

    def __init__(self, active: bool) -> None:
        self.active = active
        self.error = ""
        self._running = False

    def start(self) -> None:
        from . import cupti  # noqa: PLC0415

        if not self.active:
            return
        begun = cupti.begin({"activity": True})
        if begun.get("ok"):
            self._running = True
        else:
            self.error = "hone_cupti_begin: " + cupti.error_text(begun)

    def stop(self, device) -> Optional[list]:
        """The recorded activities, once (None with `error` set when there are none)."""
        from . import cupti  # noqa: PLC0415

        if not self._running:
            return None
        self._running = False
        device.synchronize()
        ended = cupti.end()
        if not ended.get("ok"):
            self.error = "hone_cupti_end: " + cupti.error_text(ended)
            return None
        trace = ended.get("activity") or {}
        if trace.get("dropped_records"):
            self.error = f"CUPTI dropped {trace['dropped_records']} activity records"
            return None
        return cupti.activities(trace)


class _Counters:
    """The Range Profiler's gpu__time_duration of every kernel of the calls (libhone_cupti: auto
    range, kernel replay, the same code as the native runner's time_op.cpp), when asked; with
    `prologue` (hone_harness_flush_prologue's (function, arguments)), the kernel prologue that
    flushes before each kernel, where libhone_cupti can arm it (else each call is flushed once and
    the reply's kernel_flush_error says why)."""

    def __init__(self, most: int, prologue=None) -> None:
        self.most = most
        self.active = False
        self.error = ""
        self.each_kernel = False
        self._prologue = prologue
        self._flush_error = ""
        self._summary = None

    def start(self) -> None:
        from . import cupti  # noqa: PLC0415

        if not self.most:
            return
        if cupti.unavailable():
            self.error = cupti.unavailable()
            return
        request = cupti.counter_request(self.most)
        if self._prologue is not None and not cupti.has_kernel_prologue():
            self._flush_error = "this libhone_cupti.so has no hone_cupti_kernel_prologue"
        elif self._prologue is not None:
            begun = cupti.begin(dict(request, kernel_prologue=True))
            if begun.get("ok"):
                self.active = self.each_kernel = True
                return
            self._flush_error = "hone_cupti_begin (kernel prologue): " + cupti.error_text(begun)
        begun = cupti.begin(request)
        if begun.get("ok"):
            self.active = True
        else:
            self.error = "hone_cupti_begin: " + cupti.error_text(begun)

    def arm(self, on: bool) -> None:
        """Arms the flush before each kernel for the call about to run, or disarms it after."""
        from . import cupti  # noqa: PLC0415

        function, arguments = self._prologue
        answer = cupti.kernel_prologue(function if on else None, ctypes.addressof(arguments))
        if not answer.get("ok"):
            raise RuntimeError("hone_cupti_kernel_prologue: " + cupti.error_text(answer))

    def _flush_fields(self) -> dict:
        if self._prologue is None:
            return {}
        out = {"flushed_each_kernel": self.each_kernel}
        if self._summary is not None:
            out["kernel_prologue"] = self._summary
        if self._flush_error:
            out["kernel_flush_error"] = self._flush_error
        return out

    def stop(self, device) -> dict:
        """The reply's counter fields, once."""
        from . import cupti  # noqa: PLC0415

        if not self.most:
            return {}
        if self.active:
            self.active = False
            device.synchronize()
            ended = cupti.end()
            if not ended.get("ok"):
                self.error = "hone_cupti_end: " + cupti.error_text(ended)
            else:
                self._summary = ended.get("kernel_prologue")
                ranges, why = cupti.counter_ranges(ended.get("metrics") or {}, self.most)
                if ranges is not None:
                    return dict(self._flush_fields(), counter_ranges=ranges, counter_seconds=ended.get("seconds"))
                self.error = why
        return dict(self._flush_fields(), kernel_counters_error=self.error or "no kernel counters")


class _Recorder:
    """torch.profiler's CUDA activities (kineto's CUPTI records) around the held calls, when asked."""

    def __init__(self, active: bool) -> None:
        self.active = active
        self.error = "torch.profiler recorded nothing"
        self._prof = None

    def start(self) -> None:
        if not self.active:
            return
        from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415

        self._prof = profile(activities=[ProfilerActivity.CUDA])
        self._prof.__enter__()

    def stop(self, device) -> Optional[list]:
        """The recorded activities (hone's kernels under their plain names), once."""
        if self._prof is None:
            return None
        from .profiled_call import device_activities  # noqa: PLC0415

        prof, self._prof = self._prof, None
        device.synchronize()
        prof.__exit__(None, None, None)
        return device_activities(prof)


def flush_buffers(device, size: int, cached: Sequence) -> tuple:
    """The buffer the flush reads and the sink it writes, reused while the size stays the same."""
    if cached and cached[0] is not None and cached[0].numel() == size:
        return cached[0], cached[1]
    if size == 0:
        return None, None
    buffer = torch.ones(size, dtype=torch.uint8, device=device.torch)  # written once: every page is there
    sink = torch.zeros(64, dtype=torch.uint8, device=device.torch)
    return buffer, sink

