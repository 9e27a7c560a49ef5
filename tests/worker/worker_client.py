"""A test client for the eval worker: spawns `python3 -m hone_worker` as the C++ client does
(server/worker on PYTHONPATH, real pipes) and exchanges JSON lines with a timeout."""
import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import List, Optional

REPO = Path(__file__).resolve().parents[2]
WORKER_DIR = os.environ.get("HONE_WORKER_DIR", str(REPO / "server" / "worker"))
PYTHON = os.environ.get("HONE_TEST_PYTHON", "/usr/bin/python3")


class WorkerClient:
    def __init__(self, env: Optional[dict] = None) -> None:
        environment = dict(os.environ)
        environment["PYTHONPATH"] = WORKER_DIR
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        environment.update(env or {})
        self.process = subprocess.Popen([PYTHON, "-m", "hone_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=environment)
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.stderr: List[str] = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.next_id = 1
        self.progress: List[dict] = []

    def _read_stdout(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line.decode(errors="replace").rstrip("\n"))

    def send_raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read_message(self, timeout: float = 300.0) -> dict:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError(f"worker closed its output (exit {self.process.poll()}); stderr:\n" + "\n".join(self.stderr[-30:]))
        return json.loads(line)

    def call(self, method: str, params: Optional[dict] = None, timeout: float = 300.0) -> dict:
        """Sends one request and returns its reply object ({"id", "result"} or {"id", "error"})."""
        request_id = self.next_id
        self.next_id += 1
        self.send_raw(json.dumps({"id": request_id, "method": method, "params": params or {}}).encode() + b"\n")
        self.progress = []
        while True:
            message = self.read_message(timeout)
            if message.get("method") == "progress":
                assert message["id"] == request_id, message
                self.progress.append(message["params"])
                continue
            assert message["id"] == request_id, message
            return message

    def result(self, method: str, params: Optional[dict] = None, timeout: float = 300.0) -> dict:
        reply = self.call(method, params, timeout)
        if "error" in reply:
            raise AssertionError(f"{method} failed: {reply['error']}\nstderr:\n" + "\n".join(self.stderr[-30:]))
        return reply["result"]

    def close(self) -> int:
        if self.process.poll() is None:
            try:
                self.send_raw(b'{"id": 0, "method": "shutdown"}\n')
            except BrokenPipeError:
                pass
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                pipe.close()
            except OSError:
                pass
        return code
