"""Where the profiling child runs: it loads the candidate (and the reference) in its own process, so
it starts confined, from a python-runner launch spec borrowed from the pool (its slot's process
is ended first and the slot starts afresh afterwards): the same wrapper and scratch folder, with
`-m hone_worker.profile REQUEST OUT` in place of `-m hone_worker.runner`, and ncu's command line,
when it is the fallback, inside the confinement just before the interpreter. Main thread."""
import copy
import os
import shutil
import signal
import subprocess
import sys
from typing import List, Optional

from .candidate_process import dies_with_judge
from .channel import log
from .errors import KernelError, TaskError, WorkerError
from .launch import LaunchSpec, clear_folder
from .pool import shared_pool

RUNNER_MODULE = "hone_worker.runner"
PROFILE_MODULE = "hone_worker.profile"


def child_argv(spec: LaunchSpec, arguments: List[str], prefix: List[str]) -> List[str]:
    """The spec's command with the profiling module in place of the runner's."""
    for i in range(1, len(spec.argv) - 1):
        if spec.argv[i] == "-m" and spec.argv[i + 1] == RUNNER_MODULE:
            return spec.argv[:i - 1] + prefix + [spec.argv[i - 1], "-m", PROFILE_MODULE] + arguments
    raise WorkerError(f"the python launch spec does not run `-m {RUNNER_MODULE}`, so the profiling child cannot "
                      f"start from it: {' '.join(spec.argv)}")


class ProfileChild:
    """A borrowed python-runner slot: its spec and its scratch folder (`folder`)."""

    def __init__(self, device: str) -> None:
        self.device = device
        self._process = None
        self.spec: Optional[LaunchSpec] = None
        self.folder = ""

    def __enter__(self) -> "ProfileChild":
        self._process = shared_pool().take("python", self.device)
        self._process.end()
        self.spec = self._process.spec
        self.folder = self.spec.scratch
        clear_folder(self.folder)
        return self

    def __exit__(self, *exc) -> bool:
        shared_pool().release(self._process)
        return False

    def stage(self, child_request: dict) -> dict:
        """The request with the task file and the kernel library copied into the scratch folder."""
        staged = copy.deepcopy(child_request)
        staged["task"] = self._copy(child_request["task"], "task.py", TaskError)
        library = child_request["kernel"]["library"]
        staged["kernel"]["library"] = self._copy(library, "kernel" + (os.path.splitext(library)[1] or ".so"),
                                                 KernelError)
        # A KernelBench answer's load_inline builds (form modelnew).
        for k, (name, module) in enumerate(sorted((child_request["kernel"].get("modules") or {}).items())):
            staged["kernel"]["modules"][name]["library"] = self._copy(
                module["library"], f"extension{k}" + (os.path.splitext(module["library"])[1] or ".so"), KernelError)
        return staged

    def _copy(self, path: str, name: str, error) -> str:
        target = os.path.join(self.folder, name)
        try:
            shutil.copyfile(path, target)
            os.chmod(target, 0o755)
        except OSError as exc:
            raise error(f"cannot copy {path} for the profiling child: {exc}") from None
        return target

    def run(self, arguments: List[str], prefix: List[str], timeout_s: float) -> Optional[str]:
        """Runs the child to its end; returns how it ended ("exit code 0", "signal 11"), or None
        when it passed `timeout_s` (its process group is then killed)."""
        argv = child_argv(self.spec, arguments, prefix)
        log(f"profiling in a confined child process: {' '.join(argv)}")
        process = subprocess.Popen(dies_with_judge(argv), env=self.spec.env, cwd=self.spec.cwd or self.folder,
                                   stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(), stderr=sys.stderr.fileno(),
                                   start_new_session=True)
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return None
        if code < 0:
            return f"signal {-code}"
        if self.spec.exit_code_carries_signal and code > 128:
            return f"signal {code - 128}"
        return f"exit code {code}"
