"""The python runner's request loop: one reply per request, in order, for the ops map, load, state,
call, time, records and exit (protocol/WORKER.md, candidate protocol). Every failure is an error
reply; only the candidate itself can end the process (a crash, an exit), which the judge sees.
Runs on the main thread; forms, the harness and the profiler are imported on first use."""
import errno
import json
import os
import sys
import traceback
from typing import Callable, Dict, List

from ..arena import ArenaTable, BadBuffer, CudaArena, HostArena
from ..devices import Device
from .errors import RunnerError, bad_request, candidate_failure, load_error, unsupported
from .transport import Transport

Handler = Callable[[dict, List[int]], dict]
DEFAULT_SPIN_US = 1000.0  # the native runner's default hold before a records call


def log(message: str) -> None:
    """One line on stderr, which the judge keeps as evidence if the process dies."""
    sys.stderr.write(f"hone-runner: {message}\n")
    sys.stderr.flush()


class Session:
    """The state of one candidate process: its device, mapped arenas and (once) loaded candidate."""

    def __init__(self, transport: Transport, device: Device) -> None:
        self.transport, self.device = transport, device
        self.arenas = ArenaTable()
        self.candidate = None
        self._previous_returned = None
        self._flush = (None, None)
        self._ops: Dict[str, Handler] = {"map": self._map, "load": self._load, "state": self._state,
                                         "call": self._call, "time": self._time, "records": self._records,
                                         "prepare_counters": self._prepare_counters,
                                         "exit": lambda request, fds: {}}

    def serve(self) -> int:
        """Answers requests until `exit` or the judge closes its end; returns the exit status."""
        while True:
            received = self.transport.receive()
            if received is None:
                return 0
            data, fds = received
            request_id, op, reply = None, None, None
            try:
                request = _parse(data)
                request_id, op = request.get("id"), request.get("op")
                if op not in self._ops:
                    raise bad_request(f"unknown op {op!r} (ops: {', '.join(self._ops)})")
                reply = {"id": request_id, "ok": True, **self._ops[op](request, fds)}
            except RunnerError as exc:
                reply = {"id": request_id, "ok": False, "error": exc.to_json()}
            except BadBuffer as exc:
                reply = {"id": request_id, "ok": False, "error": bad_request(str(exc)).to_json()}
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - an op's own bug, or a task's SystemExit, is still one reply
                reply = {"id": request_id, "ok": False,
                         "error": RunnerError("internal", f"{op}: {type(exc).__name__}: {exc}",
                                              traceback.format_exc()).to_json()}
            finally:
                for fd in fds:
                    os.close(fd)
            if not self._reply(reply):
                return 0
            if op == "exit" and reply["ok"]:
                return 0

    def _reply(self, reply: dict) -> bool:
        try:
            self.transport.send(reply)
        except OSError as exc:
            if exc.errno not in (errno.EMSGSIZE, errno.ENOBUFS):  # too long: the judge hears so; else it is gone
                return False
            error = RunnerError("internal", f"the reply is too long for one datagram: {exc}")
            self.transport.send({"id": reply.get("id"), "ok": False, "error": error.to_json()})
        return True

    def send_event(self, request_id, event: str) -> None:
        self.transport.send({"id": request_id, "event": event})

    def _map(self, request: dict, fds: List[int]) -> dict:
        arenas = request.get("arenas")
        if not isinstance(arenas, list) or len(arenas) != len(fds):
            raise bad_request(f"map needs one fd per arena: {len(fds)} fd(s) came for {request.get('arenas')!r}")
        mapped = []
        while fds:
            entry, fd = arenas[len(mapped)], fds.pop(0)
            mapped.append(self._map_one(entry, fd))
        return {"arenas": mapped}

    def _map_one(self, entry, fd: int) -> dict:
        """Attaches one arena; `fd` is closed here whatever happens (a mapping keeps what it needs)."""
        if not isinstance(entry, dict) or not isinstance(entry.get("arena"), int) or \
                not isinstance(entry.get("bytes"), int) or entry.get("kind") not in ("host", "cuda"):
            os.close(fd)
            raise bad_request(f"a map entry needs arena, kind (host or cuda) and bytes, not {entry!r}")
        if entry["kind"] == "cuda" or entry.get("register"):
            if not self.device.is_cuda:
                os.close(fd)
                raise unsupported(f"arena {entry['arena']}: CUDA arenas and registered host arenas need a CUDA "
                                  "device; this runner's device is the CPU")
        if entry["kind"] == "cuda":
            arena = CudaArena.attach(entry["arena"], fd, entry["bytes"], self.device.index)
        else:
            try:
                arena = HostArena.attach(entry["arena"], fd, entry["bytes"])
            except BaseException:
                os.close(fd)
                raise
            if entry.get("register"):
                try:
                    arena.device_address = self._harness().register(arena.address, arena.size)
                except BaseException:
                    arena.close()
                    raise
        try:
            self.arenas.add(arena)
        except BadBuffer:
            arena.close()
            raise
        return {"arena": arena.id, "bytes": arena.size, "address": arena.address}

    def _load(self, request: dict, fds: List[int]) -> dict:
        from .forms import LoadSpec, load_candidate  # noqa: PLC0415 - lazily: start-up imports torch only

        if self.candidate is not None:
            raise bad_request(f"this process already loaded a {self.candidate.form}-form candidate; a process is "
                              "loaded once")
        spec = LoadSpec.from_json(request)
        log(" ".join(filter(None, [f"loading a {spec.form}-form candidate", spec.library or spec.source])))
        try:
            candidate = load_candidate(spec, self.device)
        except RunnerError:
            raise
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - loading runs the candidate's own code, SystemExit included
            raise load_error(f"loading the {spec.form}-form candidate raised {type(exc).__name__}: {exc}", exc) \
                from None
        if spec.form != "null":  # as hone-runner: a null load is not the one load
            self.candidate = candidate
        return {"declared": candidate.declared, "params": candidate.params()}

    def _loaded(self):
        """The loaded candidate; before any `load`, the null form (the judge's loop calibration)."""
        if self.candidate is None:
            from .null_form import NullCandidate  # noqa: PLC0415

            return NullCandidate()
        return self.candidate

    def _state(self, request: dict, fds: List[int]) -> dict:
        candidate = self._loaded()
        outputs = [self.arenas.tensor(b) for b in _list(request, "outputs")]
        tensors = candidate.state_tensors()
        if len(outputs) != len(tensors):
            raise bad_request(f"state has {len(tensors)} tensors; {len(outputs)} buffers came")
        for k, (t, out) in enumerate(zip(tensors, outputs)):
            if tuple(t.shape) != tuple(out.shape) or t.dtype != out.dtype:
                raise bad_request(f"state tensor {k} is {t.dtype} {list(t.shape)}; buffer {k} is {out.dtype} "
                                  f"{list(out.shape)}")
            out.copy_(t)
        self.device.synchronize()
        return {}

    def _call(self, request: dict, fds: List[int]) -> dict:
        from .. import poison  # noqa: PLC0415
        import torch  # noqa: PLC0415

        from .returned import (aliases_an_argument, changed_since, copy_into, describe,  # noqa: PLC0415
                               overwrite_arguments, returned_tensors)

        candidate = self._loaded()
        args = [self.arenas.value(a) for a in _list(request, "args")]
        outputs = [self.arenas.tensor(b) for b in _list(request, "outputs")]
        label = str(request.get("label", ""))
        log(f"call {label}".rstrip())
        bound = candidate.bind(args, outputs)
        problems: List[str] = []
        with self._guard(f"forward ({label})" if label else "forward"):
            self.device.synchronize()
            if request.get("poison"):
                with poison.malloc_perturbation(), poison.fresh_allocations_poisoned(self.device, problems):
                    result = bound()
            else:
                result = bound()
            returned = None if candidate.writes_outputs else returned_tensors(result)
            self.device.synchronize()
            changed: List[bool] = []
            if returned is not None and aliases_an_argument(returned, args):
                copy_into(returned, outputs)  # a view the `aliases` metadata names (the judge decides)
                self.device.synchronize()
            elif returned is not None:
                # The arguments overwritten before the result is copied: a result that is an
                # argument's memory under another mapping (mremap, a second VMM map) copies the
                # overwritten values, and says so; the arguments are put back after.
                before = [t.clone() for t in returned]
                kept = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
                overwrite_arguments(args)
                self.device.synchronize()
                changed = changed_since(returned, before)
                copy_into(returned, outputs)
                for a, k in zip(args, kept):
                    if isinstance(a, torch.Tensor):
                        a.copy_(k)
                self.device.synchronize()
        # The previous call's result stays alive until this one returns, so memory forward hands out
        # again while the caller still holds it (a cached output) shows as the same storage.
        self._previous_returned = returned
        reply = {} if returned is None else {"returned": describe(returned, args, changed)}
        if problems:
            reply["poison_problems"] = problems
        return reply

    def _time(self, request: dict, fds: List[int]) -> dict:
        from . import timed_calls  # noqa: PLC0415

        candidate = self._loaded()
        plan = timed_calls.parse_plan(request, self.arenas, self.device.is_cuda)
        mixes = any(entry.mixed for entry in plan.schedule)
        harness = self._harness() if plan.flush_bytes or plan.mode == "device" or mixes else None
        self._flush = timed_calls.flush_buffers(self.device, plan.flush_bytes, self._flush)
        loop = timed_calls.TimedLoop(plan, candidate, harness, self.device, *self._flush)
        log(f"time: {len(plan.schedule)} calls, mode {plan.mode}")
        with self._guard("a timed call"):
            return loop.run(lambda event: self.send_event(request.get("id"), event))

    def _prepare_counters(self, request: dict, fds: List[int]) -> dict:
        """The Range Profiler set up ahead for the kernel counters a later `time` op with the same
        kernel_counters asks for (libhone_cupti's hone_cupti_prepare, as the native runner does)."""
        from . import cupti  # noqa: PLC0415

        most = request.get("kernel_counters")
        if not isinstance(most, int) or isinstance(most, bool) or not 1 <= most <= 4096:
            raise bad_request(f"prepare_counters.kernel_counters must be 1..4096 (the most kernel ranges the time op "
                              f"will count), not {most!r}")
        if not self.device.is_cuda:
            raise unsupported("prepare_counters needs a CUDA device (hardware counters)")
        answer = cupti.prepare(cupti.counter_request(most))
        if not answer.get("ok"):
            raise unsupported("prepare_counters: hone_cupti_prepare: " + cupti.error_text(answer))
        return {"seconds": answer.get("seconds") or {}}

    def _records(self, request: dict, fds: List[int]) -> dict:
        from .profiled_call import record_call  # noqa: PLC0415
        from .returned import copy_into, returned_tensors  # noqa: PLC0415

        candidate = self._loaded()
        args = [self.arenas.value(a) for a in _list(request, "args")]
        outputs = [self.arenas.tensor(b) for b in _list(request, "outputs")]
        spin_us = request.get("spin_us", DEFAULT_SPIN_US)
        if not isinstance(spin_us, (int, float)) or isinstance(spin_us, bool) or not 0 <= spin_us <= 1e7:
            raise bad_request(f"records.spin_us must be a number in 0..1e7, not {spin_us!r}")
        harness = self._harness() if self.device.is_cuda else None
        bound = candidate.bind(args, outputs)

        def keep(result) -> None:
            if not candidate.writes_outputs:
                copy_into(returned_tensors(result), outputs)

        log("records: one profiled call")
        with self._guard("the profiled forward"):
            return record_call(bound, keep, self.device, harness, float(spin_us), candidate.namespace,
                               python_ops=candidate.form not in ("raw", "null"))

    def _harness(self):
        from .harness import HarnessMissing, harness  # noqa: PLC0415

        try:
            loaded = harness()
        except HarnessMissing as exc:
            raise unsupported(str(exc)) from None
        if self.device.is_cuda and not loaded.has_cuda:
            raise unsupported(f"{loaded.path} was built without CUDA; a CUDA runner needs its kernels")
        return loaded

    def _guard(self, what: str) -> "_CandidateGuard":
        return _CandidateGuard(self.device, what)


class _CandidateGuard:
    """Around code that runs the candidate: any exception becomes the RunnerError it means
    (a sticky CUDA error when the context no longer works). SystemExit from forward included."""

    def __init__(self, device: Device, what: str) -> None:
        self.device, self.what = device, what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or isinstance(exc, (KeyboardInterrupt, GeneratorExit)):
            return False
        if isinstance(exc, RunnerError) and exc.kind in ("bad_request", "unsupported", "internal"):
            return False
        from .harness import HarnessError  # noqa: PLC0415

        broken = self.device.context_broken()
        if isinstance(exc, HarnessError) and not broken:
            raise RunnerError("internal", str(exc), "".join(traceback.format_exception(kind, exc, tb))) from None
        raise candidate_failure(exc, self.what, broken) from None


def _parse(data: bytes) -> dict:
    if not data:
        raise bad_request("the message was cut short: over 8 MiB, or too many file descriptors")
    try:
        message = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad_request(f"the message is not UTF-8 JSON: {exc}") from None
    if not isinstance(message, dict):
        raise bad_request("a request must be a JSON object")
    if not isinstance(message.get("id"), int) or isinstance(message.get("id"), bool):
        raise bad_request(f"a request needs an integer id, not {message.get('id')!r}")
    return message


def _list(request: dict, key: str) -> list:
    value = request.get(key, [])
    if not isinstance(value, list):
        raise bad_request(f"{request.get('op')}.{key} must be a list, not {value!r}")
    return value

