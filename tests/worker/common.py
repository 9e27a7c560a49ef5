"""Shared pieces of the worker's test suites: paths, one real worker per test class, and a
helper that builds a kernel and checks it."""
import os
import time
import unittest
from pathlib import Path

from kernel_build import Built, build
from worker_client import WorkerClient

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ADVERSARIAL = REPO / "tests" / "adversarial"
KERNELBENCH = Path(os.environ.get("HONE_KERNELBENCH", "/work/shared/kernelbench"))

# Short budgets keep the suites fast on a 2-core machine; the policy logic is the same.
QUICK_TIMING = {"warmup_ms": 5, "rep_ms": 20, "min_reps": 15, "max_reps": 200}
# A check whose time the judge withheld on a busy machine is made again this many times in all,
# this many seconds apart (CI's machine is shared; see check_result).
WITHHELD_ATTEMPTS, WITHHELD_PAUSE_S = 3, 2.0


class WorkerTestCase(unittest.TestCase):
    """Starts one worker process for the class and shuts it down afterwards."""

    worker: WorkerClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.worker = WorkerClient()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.worker.close()

    def ensure_worker(self) -> None:
        """Starts a fresh worker if the last one exited (after a restart_required reply)."""
        if self.worker.process.poll() is not None:
            type(self).worker = WorkerClient()

    def check(self, kernel, task, device: str = "cpu", policy=None, timeout: float = 600.0) -> dict:
        built = kernel if isinstance(kernel, Built) else build(kernel, device)
        params = {"task": str(task), "device": device, "kernel": built.kernel_params(),
                  "policy": dict(QUICK_TIMING, **(policy or {}))}
        self.ensure_worker()
        return self.worker.call("check", params, timeout)

    def check_result(self, kernel, task, device: str = "cpu", policy=None) -> dict:
        """The check's result. A correct verdict whose time the judge withheld (flag timing_withheld:
        other processes kept the machine busy while the bounds failed, hone_worker/bounds.py) is
        checked again, up to WITHHELD_ATTEMPTS checks in all; the test is skipped, visibly and with
        the judge's reason, when every one was withheld: such a machine times nothing, and the
        withheld path has its own tests (test_units)."""
        for attempt in range(1, WITHHELD_ATTEMPTS + 1):
            reply = self.check(kernel, task, device, policy)
            self.assertIn("result", reply, reply)
            withheld = [f["message"] for f in reply["result"].get("flags", []) if f["id"] == "timing_withheld"]
            if not withheld:
                return reply["result"]
            print(f"check {attempt} of {WITHHELD_ATTEMPTS}: time withheld ({withheld[0]})", flush=True)
            if attempt < WITHHELD_ATTEMPTS:
                time.sleep(WITHHELD_PAUSE_S)
        self.skipTest(f"the judge withheld the time in {WITHHELD_ATTEMPTS} checks, the machine busy: {withheld[0]}")

    def flag_ids(self, result: dict) -> list:
        return [f["id"] for f in result.get("flags", [])]


def case_statuses(case: dict) -> list:
    """An adversarial case's allowed statuses: tests/adversarial/cases.json gives one or a list."""
    status = case["status"]
    return status if isinstance(status, list) else [status]


def basis_p50_us(result: dict) -> float:
    """A check result's time the speedups divide: the device time's median, else the call time's."""
    timing = result["timing"]
    return (timing.get("device") or timing)["p50_us"]
