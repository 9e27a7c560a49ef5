"""A test client for the python runner, playing the judge's part of the candidate protocol: it
spawns `python3 -m hone_worker.runner` with one end of a real SOCK_SEQPACKET socketpair on its
fds 0 and 1, sends requests (fds as SCM_RIGHTS), reads replies and events with a timeout, and
creates host arenas with hone_worker.arena, as the judge does."""
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional, Sequence

REPO = Path(__file__).resolve().parents[2]
WORKER_DIR = os.environ.get("HONE_WORKER_DIR", str(REPO / "server" / "worker"))
PYTHON = os.environ.get("HONE_TEST_PYTHON", "/usr/bin/python3")
sys.path.insert(0, WORKER_DIR)

from hone_worker.arena import HostArena, Layout  # noqa: E402


class RunnerDied(Exception):
    """The runner closed the socket; `code` is its exit status (negative: the signal)."""

    def __init__(self, code: Optional[int], stderr: List[str]) -> None:
        super().__init__(f"the runner ended with status {code}; stderr:\n" + "\n".join(stderr[-30:]))
        self.code = code


class RunnerClient:
    def __init__(self, device: str = "cpu", env: Optional[dict] = None, ready_timeout: float = 120.0) -> None:
        environment = dict(os.environ, PYTHONPATH=WORKER_DIR, PYTHONDONTWRITEBYTECODE="1")
        environment.update(env or {})
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.started = time.perf_counter()
        self.process = subprocess.Popen([PYTHON, "-m", "hone_worker.runner", "--device", device], stdin=theirs,
                                        stdout=theirs, stderr=subprocess.PIPE, env=environment,
                                        start_new_session=True)
        theirs.close()
        self.stderr: List[str] = []
        self._stderr_done = threading.Event()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.events: List[dict] = []
        self.ready = self.receive(ready_timeout)
        self.ready_s = time.perf_counter() - self.started
        self.next_id = 1
        self.arenas: List[HostArena] = []
        self.addresses = {}  # arena id -> where the runner mapped it

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line.decode(errors="replace").rstrip("\n"))
        self._stderr_done.set()

    def receive(self, timeout: float = 300.0) -> dict:
        """The next message; raises RunnerDied when the runner has closed its end."""
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if not ready:
            raise TimeoutError(f"no message from the runner in {timeout} s; stderr:\n" + "\n".join(self.stderr[-30:]))
        data = self.sock.recv(8 << 20)
        if not data:
            code = self.process.wait(60)
            self._stderr_done.wait(10)
            raise RunnerDied(code, self.stderr)
        return json.loads(data)

    def send(self, message: dict, fds: Sequence[int] = ()) -> None:
        self.send_raw(json.dumps(message).encode(), fds)

    def send_raw(self, data: bytes, fds: Sequence[int] = ()) -> None:
        socket.send_fds(self.sock, [data], list(fds))

    def request(self, op: str, fds: Sequence[int] = (), timeout: float = 300.0, **fields) -> dict:
        """Sends {"id", "op", **fields}; returns its reply, keeping events that came first in `events`."""
        request_id = self.next_id
        self.next_id += 1
        self.send(dict(fields, id=request_id, op=op), fds)
        while True:
            message = self.receive(timeout)
            assert message.get("id") == request_id, message
            if "event" in message:
                self.events.append(message)
                continue
            return message

    def ok(self, op: str, fds: Sequence[int] = (), timeout: float = 300.0, **fields) -> dict:
        reply = self.request(op, fds, timeout, **fields)
        if not reply.get("ok"):
            raise AssertionError(f"{op} failed: {reply.get('error')}\nstderr:\n" + "\n".join(self.stderr[-30:]))
        return reply

    def host_arena(self, arena_id: int, layout: Layout) -> HostArena:
        """Creates a host arena of the layout's size and maps it in the runner."""
        arena = HostArena.create(arena_id, layout.size)
        self.arenas.append(arena)
        reply = self.ok("map", [arena.fd], arenas=[{"arena": arena_id, "kind": "host", "bytes": arena.size,
                                                    "register": False}])
        self.addresses[arena_id] = reply["arenas"][0]["address"]
        return arena

    def close(self) -> Optional[int]:
        """Asks the runner to exit (if it still runs) and returns its status."""
        if self.process.poll() is None:
            try:
                self.send({"id": 0, "op": "exit"})
            except OSError:
                pass
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            code = self.process.wait()
        self.sock.close()
        self._stderr_done.wait(10)
        self.process.stderr.close()
        return code
