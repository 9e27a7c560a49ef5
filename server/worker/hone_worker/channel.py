"""The worker's side of the JSON-lines protocol: it takes over the process's stdin and stdout so
that only protocol messages reach the client, and everything else printed goes to stderr."""
import json
import math
import os
import sys
import threading
import time
from typing import Optional

from .errors import BadRequest


class Channel:
    """Reads requests and writes replies; owned by the main thread (the worker is single-threaded)."""

    def __init__(self) -> None:
        sys.stdout.flush()
        # Private copies of the protocol pipes; fd 0 reads /dev/null and fd 1 is stderr from now
        # on, so a task or a candidate that prints or reads cannot corrupt the protocol.
        self._requests = os.fdopen(os.dup(0), "rb")
        self._replies = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)

    def read(self) -> Optional[dict]:
        """Next request, or None at end of input. Raises BadRequest for a malformed line."""
        while True:
            line = self._requests.readline()
            if not line:
                return None
            if line.strip():
                break
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError) as exc:
            raise BadRequest(f"request is not valid JSON: {exc}") from None
        if not isinstance(message, dict):
            raise BadRequest("request must be a JSON object")
        return message

    def send(self, message: dict) -> None:
        data = json.dumps(_finite(message), allow_nan=False, separators=(",", ":")).encode() + b"\n"
        self._replies.write(data)
        self._replies.flush()


def _finite(value):
    """JSON has no NaN or Inf: such numbers travel as the strings "nan", "inf" and "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class Request:
    """One request being served: its id, its params, and a way to report progress."""

    def __init__(self, channel: Channel, request_id, method: str, params: dict) -> None:
        self.channel = channel
        self.id = request_id
        self.method = method
        self.params = params

    def progress(self, stage: str, message: str) -> None:
        """Sends a progress notification for this request (any number, before the reply)."""
        log(f"{stage}: {message}")
        self.channel.send({"id": self.id, "method": "progress", "params": {"stage": stage, "message": message}})


_stderr_lock = threading.Lock()


def log(message: str) -> None:
    """One line on stderr: the client keeps the last lines as evidence when the worker dies."""
    write_line(f"hone-worker: {message}")


# HONE_JUDGE_LOG names a file that also gets every line (diagnostics: the engine keeps only the
# last lines of a judge's stderr, and only in a failed verdict's evidence).
_JUDGE_LOG = os.environ.get("HONE_JUDGE_LOG")


def write_line(line: str) -> None:
    """One whole line on stderr (any thread: the judge also relays its candidates' lines)."""
    with _stderr_lock:
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        if _JUDGE_LOG:
            try:
                with open(_JUDGE_LOG, "a", encoding="utf-8") as log:
                    log.write(f"{os.getpid()} {time.time():.3f} {line}\n")
            except OSError:
                pass
