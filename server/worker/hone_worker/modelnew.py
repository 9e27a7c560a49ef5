"""A KernelBench answer in the judge (issue 15): the answer file and hone's builds of its
load_inline calls are staged into the candidate process, which imports the answer there (never
here) and builds ModelNew as KernelBench does (every generator seeded with MODEL_SEED, the task's
get_init_inputs(), ModelNew(*init)); the judge builds Model the same way for every trial, so both
own the same weights, and compares ModelNew's state_dict() with Model's."""
import os
from typing import Optional

import torch

from .candidate_session import CandidateSession
from .devices import Device
from .exchange import SharedMemory
from .instance import build_instance
from .kernel_spec import KernelSpec
from .task import Task

MODEL_SEED = 42  # KernelBench's seed before each constructor


def load_modelnew(session: CandidateSession, spec: KernelSpec, task: Task) -> dict:
    """Stages the answer, its extensions and the task; loads ModelNew. Returns the load reply."""
    fields = {"form": "modelnew", "seed": MODEL_SEED,
              "source": session.stage_file(spec.library, "answer.py"),
              "task": session.stage_file(task.path, "task.py"), "modules": {}, "namespaces": {}}
    for k, (name, module) in enumerate(sorted(spec.modules.items())):
        fields["modules"][name] = session.stage_file(module["library"], f"extension{k}" +
                                                     (os.path.splitext(module["library"])[1] or ".so"))
        fields["namespaces"][name] = module["namespace"]
    return session.load(fields)


def parameter_problem(session: CandidateSession, memory: SharedMemory, task: Task, device: Device,
                      declared_params: list) -> Optional[str]:
    """None when ModelNew's state_dict() equals Model's (same seed, same init), else why not."""
    reference = build_instance(task, device, MODEL_SEED, MODEL_SEED)
    names = list(reference.model.state_dict().keys())
    expected = reference.params
    theirs = [(p.get("name"), p.get("dtype"), list(p.get("shape") or [])) for p in declared_params or []]
    if len(theirs) != len(expected):
        return (f"ModelNew has {len(theirs)} parameter/buffer tensors ({', '.join(str(t[0]) for t in theirs[:4])}"
                f"{', ...' if len(theirs) > 4 else ''}), Model has {len(expected)} "
                f"({', '.join(names[:4])}{', ...' if len(names) > 4 else ''})")
    for (name, dtype, shape), ref_name, ref in zip(theirs, names, expected):
        ref_dtype = str(ref.dtype).replace("torch.", "")
        if dtype != ref_dtype or shape != list(ref.shape):
            return (f"ModelNew's {name} is {dtype} {shape}; Model's {ref_name} at the same place is "
                    f"{ref_dtype} {list(ref.shape)}")
    if not expected:
        return None
    region = memory.region([(t.dtype, list(t.shape), None) for t in expected])
    session.map([region])
    session.state(region.bufs())
    got = [v.clone() for v in region.views]
    memory.synchronize()
    for (name, _, _), ref_name, mine, ref in zip(theirs, names, got, expected):
        if not torch.equal(mine.cpu(), ref.cpu()):
            diff = (mine.double().cpu() - ref.double().cpu()).abs().max().item()
            return (f"ModelNew's {name} differs from Model's {ref_name} after both were built with seed {MODEL_SEED} "
                    f"(max abs difference {diff:.3g}): ModelNew must create its parameters as Model does")
    return None


def initialisation_note(task: Task) -> str:
    return (f"Model and ModelNew each built after seeding every generator with {MODEL_SEED}, from the task's "
            f"get_init_inputs(), as KernelBench builds them; ModelNew.forward gets the inputs only")
