"""The `hello` method: the worker's Python, torch and devices, as the client needs them to build
torch-form kernels and to name the GPU in verdicts and baseline caches."""
import os
import platform
import sys

import torch

from .channel import Request
from .launch import KINDS
from .poison import malloc_perturbation
from .pool import shared_pool

PROTOCOL_VERSION = 1


def handle_hello(params: dict, request: Request) -> dict:
    """`hello`: called by the request loop on the main thread, usually first."""
    from torch.utils import cpp_extension

    with malloc_perturbation() as perturbation:
        pass
    return {
        "protocol": PROTOCOL_VERSION,
        "python": platform.python_version(),
        "executable": sys.executable,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "torch_dir": os.path.dirname(torch.__file__),
        "include_paths": cpp_extension.include_paths(),
        "library_paths": cpp_extension.library_paths(),
        "compile_available": hasattr(torch, "compile"),
        "malloc_perturbation": perturbation,
        "devices": [_device(i) for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else [],
        "pid": os.getpid(),
        "candidate_runners": {kind: shared_pool().has(kind) for kind in KINDS},
    }


def _device(index: int) -> dict:
    p = torch.cuda.get_device_properties(index)
    facts = {
        "index": index,
        "name": p.name,
        "arch": f"sm_{p.major}{p.minor}",
        "sm_count": p.multi_processor_count,
        "memory_bytes": p.total_memory,
    }
    uuid = getattr(p, "uuid", None)  # torch >= 2.0
    if uuid is not None:
        text = str(uuid)
        facts["uuid"] = text if text.startswith("GPU-") else f"GPU-{text}"
    optional = {
        "l2_bytes": "L2_cache_size",
        "max_threads_per_sm": "max_threads_per_multi_processor",
        "shared_bytes_per_sm": "shared_memory_per_multiprocessor",
        "registers_per_sm": "regs_per_multiprocessor",
        "memory_clock_khz": "memory_clock_rate",
        "memory_bus_bits": "memory_bus_width",
        "sm_clock_khz": "clock_rate",
    }
    for key, attr in optional.items():
        value = getattr(p, attr, None)
        if isinstance(value, int):
            facts[key] = value
    return facts
