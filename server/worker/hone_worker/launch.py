"""How the judge starts candidate processes: the launch specs in the JSON file named by
$HONE_CANDIDATE_LAUNCH (one spec per pool slot, each already wrapped by the sandbox), or, without
that variable, the two runners unwrapped (`$HONE_RUNNER` or hone-runner beside hone's binaries,
and this interpreter's `-m hone_worker.runner`), each slot with its own scratch folder."""
import atexit
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from .errors import WorkerError

KINDS = ("native", "python")
UNWRAPPED_SLOTS = {"native": 2, "python": 3}  # pool slots per runner kind without a launch file


@dataclass(frozen=True)
class LaunchSpec:
    """One pool slot's command: argv (the runner gets `--device D` appended), its environment
    (None: the judge's own), its working folder and its scratch folder (the only one it may
    write; the judge empties it before each start)."""

    kind: str
    argv: List[str]
    env: Optional[Dict[str, str]]
    cwd: Optional[str]
    scratch: str
    # The command is a confinement wrapper that reports a child killed by signal N as exit code
    # 128+N (bwrap, hone-confine).
    exit_code_carries_signal: bool = False
    # RLIMIT_AS the judge sets on an unwrapped CPU candidate (0: none; CUDA needs no limit).
    address_space_bytes: int = 0

    @staticmethod
    def from_json(kind: str, value) -> "LaunchSpec":
        if not isinstance(value, dict) or not isinstance(value.get("argv"), list) or not value["argv"]:
            raise WorkerError(f"a {kind} launch spec needs a non-empty argv: {value!r}")
        if not all(isinstance(a, str) for a in value["argv"]):
            raise WorkerError(f"a {kind} launch spec's argv must hold strings: {value['argv']!r}")
        env = value.get("env")
        if env is not None and not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
            raise WorkerError(f"a {kind} launch spec's env must map names to strings")
        scratch = value.get("scratch")
        if not isinstance(scratch, str) or not os.path.isabs(scratch):
            raise WorkerError(f"a {kind} launch spec needs an absolute scratch folder, not {scratch!r}")
        return LaunchSpec(kind, list(value["argv"]), env, value.get("cwd"), scratch,
                          bool(value.get("exit_code_carries_signal", False)),
                          int(value.get("address_space_bytes", 0) or 0))

    def command(self, device: str) -> List[str]:
        return self.argv + ["--device", device]


def load_launch_specs(environ=None) -> Dict[str, List[LaunchSpec]]:
    """The specs per runner kind ("native", "python"); a kind may have none (its runner is not
    available). Raises WorkerError for a launch file that cannot be read."""
    environ = os.environ if environ is None else environ
    path = environ.get("HONE_CANDIDATE_LAUNCH")
    if path:
        try:
            with open(path) as f:
                document = json.load(f)
        except (OSError, ValueError) as exc:
            raise WorkerError(f"cannot read the candidate launch specs {path} ($HONE_CANDIDATE_LAUNCH): {exc}") from None
        if not isinstance(document, dict):
            raise WorkerError(f"{path}: the candidate launch specs must be an object {{\"native\": [...], \"python\": [...]}}")
        return {kind: [LaunchSpec.from_json(kind, s) for s in document.get(kind) or []] for kind in KINDS}
    return _unwrapped(environ)


def native_runner_path(environ) -> Optional[str]:
    """$HONE_RUNNER, else hone-runner in the bin folder beside hone's share folder; None if absent."""
    named = environ.get("HONE_RUNNER")
    if named:
        return named if os.access(named, os.X_OK) else None
    # <prefix>/share/hone/worker/hone_worker/launch.py -> <prefix>/bin/hone-runner
    beside = Path(__file__).resolve().parents[4] / "bin" / "hone-runner"
    return str(beside) if os.access(beside, os.X_OK) else None


def physical_memory_bytes() -> int:
    """The machine's RAM: the address-space limit of an unwrapped CPU candidate (as the engine sets)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _unwrapped(environ) -> Dict[str, List[LaunchSpec]]:
    """Unconfined runners (no launch file): a CPU candidate's address space is limited to the RAM
    as the engine's specs limit it, so that an allocation past it fails as std::bad_alloc on a
    machine that overcommits without bound (vm.overcommit_memory=1, as the GPU machine does: a
    1 TiB allocation succeeded there, 2026-12-06)."""
    root = tempfile.mkdtemp(prefix="hone-candidates-")
    atexit.register(shutil.rmtree, root, True)
    env = dict(environ)
    package_parent = str(Path(__file__).resolve().parents[1])
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([package_parent] + [p for p in paths if p != package_parent])
    commands = {"python": [sys.executable, "-m", "hone_worker.runner"]}
    native = native_runner_path(environ)
    if native:
        commands["native"] = [native]
    specs: Dict[str, List[LaunchSpec]] = {kind: [] for kind in KINDS}
    for kind, argv in commands.items():
        for k in range(UNWRAPPED_SLOTS[kind]):
            scratch = os.path.join(root, f"{kind}-{k}")
            os.makedirs(scratch)
            specs[kind].append(LaunchSpec(kind, argv, env, scratch, scratch, address_space_bytes=physical_memory_bytes()))
    return specs


def clear_folder(folder: str) -> None:
    """Empties a slot's scratch folder (keeps the folder: the sandbox set its owner and modes)."""
    os.makedirs(folder, exist_ok=True)
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except FileNotFoundError:
                pass
