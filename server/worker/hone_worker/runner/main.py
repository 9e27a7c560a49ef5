"""Start-up of the python runner: the protocol socket taken off stdio first, then torch imported and
(on CUDA) the context made, then the ready event; everything else is imported when an op needs it."""
import argparse
import os
import re
import sys
from typing import List, Optional

from .transport import Transport

PROTOCOL = 1
EXIT_USAGE, EXIT_NO_DEVICE = 2, 3


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hone_worker.runner", description=__doc__)
    parser.add_argument("--device", required=True, help="cpu or cuda:N")
    options = parser.parse_args(argv)
    match = re.fullmatch(r"cpu|cuda:(\d+)", options.device)
    if not match:
        sys.stderr.write(f"hone-runner: --device must be cpu or cuda:N, not {options.device!r}\n")
        return EXIT_USAGE
    try:
        transport = Transport.take_over_stdio()
    except OSError as exc:
        sys.stderr.write(f"hone-runner: {exc}\n")
        return EXIT_USAGE
    if match.group(1) is not None:
        from . import cupti  # noqa: PLC0415

        cupti.preload()  # before torch: the toolkit's CUPTI is the process's one
    import torch  # noqa: PLC0415 - after the socket is safe from what torch's import prints

    from ..devices import Device  # noqa: PLC0415
    from .forms import available_forms  # noqa: PLC0415
    from .session import Session  # noqa: PLC0415

    torch.set_grad_enabled(False)  # forward calls run as the judge's reference does, without autograd
    if os.environ.get("MALLOC_PERTURB_"):
        from ..poison import stop_malloc_perturbation  # noqa: PLC0415 - an inherited one would slow timing

        stop_malloc_perturbation()
    device = Device("cuda", int(match.group(1))) if match.group(1) is not None else Device("cpu")
    problem = _make_context(device)
    if problem:
        sys.stderr.write(f"hone-runner: {problem}\n")
        return EXIT_NO_DEVICE
    transport.send({"event": "ready", "protocol": PROTOCOL, "runner": "python", "pid": os.getpid(),
                    "device": str(device), "forms": available_forms(), "torch": torch.__version__,
                    "cupti": device.is_cuda and torch.autograd.kineto_available()})
    return Session(transport, device).serve()


def _make_context(device) -> Optional[str]:
    """Why the device cannot be used, or None once its CUDA context exists and is current."""
    import torch  # noqa: PLC0415

    if not device.is_cuda:
        return None
    if not torch.cuda.is_available() or device.index >= torch.cuda.device_count():
        return f"{device} is not visible to torch {torch.__version__} (CUDA devices: {torch.cuda.device_count()})"
    torch.cuda.set_device(device.index)
    torch.empty(1, device=device.torch)
    torch.cuda.synchronize(device.index)
    return None
