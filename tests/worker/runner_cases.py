"""Shared pieces of the python runner's test suites: a fresh runner per test, kernels loaded by
path, and host arenas holding the tensors of a call."""
import unittest

import torch

from common import FIXTURES
from kernel_build import build
from runner_client import RunnerClient

from hone_worker.arena import Layout

RUNNER_FIXTURES = FIXTURES / "runner"


def share(client: RunnerClient, arena_id: int, *specs):
    """A host arena mapped in the runner holding one buffer per spec: a tensor (its contents are
    copied in) or a (dtype, shape) pair. Returns the BUFs and the judge's views of them."""
    layout = Layout(arena_id)
    bufs = [layout.place(s.dtype, s.shape) if isinstance(s, torch.Tensor) else layout.place(*s) for s in specs]
    arena = client.host_arena(arena_id, layout)
    views = [arena.view(b) for b in bufs]
    for spec, view in zip(specs, views):
        if isinstance(spec, torch.Tensor):
            view.copy_(spec)
    return bufs, views


class RunnerTestCase(unittest.TestCase):
    """A fresh runner per test: each candidate process loads exactly one candidate."""

    def setUp(self) -> None:
        self.runner = RunnerClient()

    def tearDown(self) -> None:
        self.runner.close()

    def load(self, source, **fields) -> dict:
        built = build(source)
        fields.setdefault("form", built.form)
        if built.namespace:
            fields.setdefault("namespace", built.namespace)
        return self.runner.ok("load", library=built.library, **fields)
