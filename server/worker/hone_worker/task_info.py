"""The `task_info` method and the signature derivation that `check` shares: a fixed-seed instance
of the task, its reference outputs, and how much those outputs vary across seeds."""
from typing import List

import torch

from .channel import Request
from .compare import compare_outputs, tolerance_for
from .devices import Device, parse_device
from .instance import build_instance, run_reference
from .signature import Signature, derive_signature
from .task import Task, load_task

SIGNATURE_SEED = 0x5EED
VARIABILITY_SEEDS = (1, 2, 3)


def derive_task_signature(task: Task, device: Device) -> Signature:
    """Runs the reference once on a fixed seed (never one of a check's trial seeds) for the
    output shapes and dtypes."""
    instance = build_instance(task, device, SIGNATURE_SEED)
    return derive_signature(instance, run_reference(instance))


def handle_task_info(params: dict, request: Request) -> dict:
    device = parse_device(params.get("device", "cpu"))
    task = load_task(params.get("task"))
    request.progress("task", f"deriving the signature of {task.name} on {device}")
    instance = build_instance(task, device, SIGNATURE_SEED)
    outputs = run_reference(instance)
    signature = derive_signature(instance, outputs)
    language = params.get("language") or ("cpp" if device.kind == "cpu" else "cuda")
    result = {"task_hash": task.hash, "name": task.name, "path": task.path}
    result.update(signature.to_json(language))
    result["input_bytes"] = _bytes(instance.inputs) + _bytes(instance.params)
    result["output_bytes"] = _bytes(outputs)
    tolerances = [tolerance_for(o.dtype, task.atol, task.rtol) for o in outputs]
    result["tolerance"] = {"atol": max(t.atol for t in tolerances), "rtol": max(t.rtol for t in tolerances)}
    result["variability"] = None if device.kind == "meta" else _variability(task, device, tolerances, request)
    return result


def _variability(task: Task, device: Device, tolerances, request: Request) -> dict:
    first, max_diff, within = None, 0.0, True
    for seed in VARIABILITY_SEEDS:
        request.progress("task", f"reference on seed {seed}")
        outputs = run_reference(build_instance(task, device, seed))
        if first is None:
            first = outputs
            continue
        comparison = compare_outputs(outputs, first, tolerances, raw_buffers=False)
        max_diff = max(max_diff, comparison.max_abs_error or 0.0)
        within &= comparison.passed
    return {"max_abs_diff_across_seeds": max_diff, "weak": within}


def _bytes(values: List) -> int:
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))
