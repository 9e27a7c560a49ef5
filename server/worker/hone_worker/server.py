"""The judge's request loop: one JSON request at a time from stdin, one reply each, until
`shutdown`, end of input, or an error that leaves the judge's own CUDA context unusable. The
candidate pool is made at start (its launch file read) and closed at exit."""
import os
import traceback

from .channel import Channel, Request, log
from .errors import BadRequest, WorkerError

EXIT_OK = 0
EXIT_RESTART = 3  # the CUDA context is poisoned; the client starts a fresh worker


def serve() -> int:
    """Runs the worker until shutdown; returns the process exit status (python3 -m hone_worker)."""
    channel = Channel()
    import torch  # after the channel owns stdout: importing torch may print

    from .methods import METHODS
    from .poison import stop_malloc_perturbation
    from .pool import close_shared_pool

    stop_malloc_perturbation()
    _prestart(torch)
    log(f"ready (pid {os.getpid()}, torch {torch.__version__})")
    try:
        return _serve(channel, METHODS)
    finally:
        close_shared_pool()


def _prestart(torch) -> None:
    """Starts the candidate pools of this judge's device ($HONE_JUDGE_DEVICE; the CPU when it
    names a GPU that torch does not see) in the background, so the first check finds a process."""
    from .devices import Device
    from .pool import shared_pool
    from .sessions import prepare

    shared_pool()  # a broken launch file is an error at start, with its message
    wanted = os.environ.get("HONE_JUDGE_DEVICE", "")
    if not wanted:
        return
    device = Device("cpu")
    if wanted.startswith("cuda") and torch.cuda.is_available():
        index = int(wanted.partition(":")[2] or 0)
        device = Device("cuda", index) if index < torch.cuda.device_count() else device
    prepare("raw", device)


def _serve(channel: Channel, methods: dict) -> int:
    from .devices import release_cached_memory

    while True:
        try:
            message = channel.read()
        except BadRequest as exc:
            channel.send({"id": None, "error": {"code": exc.code, "message": exc.message}})
            continue
        if message is None:
            return EXIT_OK
        request_id = message.get("id")
        method = message.get("method")
        params = message.get("params") or {}
        reply, restart = _dispatch(channel, methods, request_id, method, params)
        channel.send(reply)
        release_cached_memory()
        if method == "shutdown" and "result" in reply:
            return EXIT_OK
        if restart:
            log("the CUDA context is unusable after this request; exiting so the client starts a new worker")
            return EXIT_RESTART


def _dispatch(channel: Channel, methods: dict, request_id, method, params) -> tuple:
    """Runs one handler; returns (reply, restart_required)."""
    try:
        if not isinstance(method, str) or method not in methods:
            raise BadRequest(f"unknown method {method!r}; known: {', '.join(sorted(methods))}")
        if not isinstance(params, dict):
            raise BadRequest("params must be an object")
        result = methods[method](params, Request(channel, request_id, method, params))
        return {"id": request_id, "result": result}, bool(result.get("restart_required"))
    except WorkerError as exc:
        error = {"code": exc.code, "message": exc.message}
        if exc.traceback:
            error["traceback"] = exc.traceback
        restart = _context_broken(params)
        if restart:
            error["restart_required"] = True
        return {"id": request_id, "error": error}, restart
    except Exception as exc:  # noqa: BLE001 - a bug in the worker must not end the process
        error = {"code": "internal", "message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        log(f"internal error in {method}: {error['traceback']}")  # the engine shows the message only
        restart = _context_broken(params)
        if restart:
            error["restart_required"] = True
        return {"id": request_id, "error": error}, restart


def _context_broken(params) -> bool:
    from .devices import parse_device

    if not isinstance(params, dict):
        return False
    try:
        device = parse_device(params.get("device", "cpu"))
    except WorkerError:
        return False
    return device.context_broken()
