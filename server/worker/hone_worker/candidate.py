"""Loading a candidate kernel library in the current process (raw form through ctypes, torch form
through torch.ops.load_library), checking its declared signature against the task, and calling
it. Only for processes that are allowed to hold candidate code: the profiling child
(hone_worker/profile.py, started confined from a python-runner launch spec). The judge never
imports this module's loaders; it talks to candidate processes (hone_worker/candidate_session.py)."""
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

import torch

from .abi import ArgBlock, RawLibrary
from .channel import log
from .devices import Device
from .errors import KernelError
from .kernel_spec import KernelSpec
from .faults import CandidateFailure, call_failure, launch_failure
from .instance import normalize_outputs
from .signature import Signature, raw_mismatch, torch_mismatch

_raw_libraries: Dict[str, tuple] = {}  # path -> (sha256, RawLibrary)
_torch_namespaces: Dict[str, str] = {}  # namespace -> sha256 of the library that registered it


class Candidate:
    """A loaded kernel whose signature fits the task; `bind` prepares calls on given arguments."""

    def __init__(self, spec: KernelSpec, signature: Signature, device: Device) -> None:
        self.spec = spec
        self.form = spec.form
        self.device = device
        self.signature = signature
        if not os.path.isfile(spec.library):
            raise KernelError(f"kernel library not found: {spec.library}")
        if spec.form == "raw":
            self._raw = _load_raw(spec.library)
            language = spec.language or ("cuda" if device.is_cuda else "cpp")
            problem = raw_mismatch(signature, self._raw.signature(), language)
        else:
            self._op, types, returns = _load_torch(spec.library, spec.namespace)
            problem = torch_mismatch(signature, types, returns)
        if problem:
            raise KernelError(problem)

    def bind(self, args: Sequence, outputs: Optional[List[torch.Tensor]] = None) -> "BoundCall":
        """A call of forward on `args` (inputs then params); raw form writes into `outputs`,
        buffers shaped like the reference's outputs that the caller allocated."""
        if self.form == "raw":
            block = ArgBlock(list(args) + list(outputs))
            stream = torch.cuda.current_stream(self.device.index).cuda_stream if self.device.is_cuda else 0
            return BoundCall(self, lambda: self._call_raw(block, stream, outputs), outputs)
        return BoundCall(self, lambda: normalize_kernel_outputs(self._op(*args)), None)

    def _call_raw(self, block: ArgBlock, stream: int, outputs: List[torch.Tensor]) -> List[torch.Tensor]:
        code, message = self._raw.forward(block, stream)
        if code != 0:
            raise launch_failure(code, message, self.device, "forward")
        return outputs


@dataclass
class BoundCall:
    """One prepared call; `outputs` are the harness-owned buffers of a raw-form call (else None)."""

    candidate: Candidate
    run: Callable[[], List[torch.Tensor]]
    outputs: Optional[List[torch.Tensor]]

    def __call__(self, label: str) -> List[torch.Tensor]:
        """Calls forward and waits for the device; raises CandidateFailure on any failure.
        `label` names the call on stderr, which the client keeps if the process dies."""
        log(f"calling candidate forward ({label})")
        # Everything the harness queued (inputs, poison) is done first, so a kernel that ignores
        # the caller's stream cannot race it here; the call records stage catches such kernels.
        self.candidate.device.synchronize()
        try:
            outputs = self.run()
            self.candidate.device.synchronize()
        except CandidateFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - a candidate may raise anything
            raise call_failure(exc, self.candidate.device, "forward") from None
        return outputs


def normalize_kernel_outputs(result) -> List[torch.Tensor]:
    try:
        return normalize_outputs(result, "the kernel's forward")
    except Exception as exc:  # noqa: BLE001
        raise CandidateFailure("incorrect", str(exc), check="output_structure") from None


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _load_raw(path: str) -> RawLibrary:
    digest = _sha256(path)
    known = _raw_libraries.get(path)
    if known and known[0] == digest:
        return known[1]
    load_path = path
    if known:
        # dlopen returns the library already loaded from this path: load the new contents from a copy.
        load_path = os.path.join(tempfile.mkdtemp(prefix="hone-kernel-"), f"{digest[:16]}.so")
        shutil.copyfile(path, load_path)
    library = RawLibrary(load_path)
    _raw_libraries[path] = (digest, library)
    return library


def _load_torch(path: str, namespace: str):
    digest = _sha256(path)
    registered = _torch_namespaces.get(namespace)
    if registered is not None and registered != digest:
        raise KernelError(
            f"torch namespace {namespace} is already registered in this worker by a different library; "
            "each build needs its own namespace"
        )
    if registered is None:
        try:
            torch.ops.load_library(path)
        except Exception as exc:  # noqa: BLE001 - dlopen and registration errors
            raise KernelError(f"cannot load torch-form kernel library {path}: {exc}") from None
        _torch_namespaces[namespace] = digest
    schemas = torch._C._jit_get_schemas_for_operator(f"{namespace}::forward")
    if not schemas:
        raise KernelError(f"{path} does not register torch.ops.{namespace}.forward; is the namespace right?")
    schema = schemas[0]
    types = [str(a.type) for a in schema.arguments]
    returns = [str(r.type) for r in schema.returns]
    count = None if returns == ["Tensor[]"] else len(returns)
    return getattr(getattr(torch.ops, namespace), "forward"), types, count
