"""Timing through the real worker and in-process: budgets decide warm-up and repetitions, the
timed inputs change between calls, timed outputs are spot-checked, and time_reference uses the
same code for the reference."""
import sys
import time
import unittest

import torch

from common import ADVERSARIAL, FIXTURES, TASKS, WorkerTestCase
from worker_client import WORKER_DIR

sys.path.insert(0, WORKER_DIR)

from hone_worker import timing  # noqa: E402
from hone_worker.devices import Device  # noqa: E402
from hone_worker.task import load_task  # noqa: E402
from hone_worker.variation import InputVariation  # noqa: E402


class TimeCallsTest(unittest.TestCase):
    def test_host_clock_measures_the_call(self):
        budget = timing.Budget(warmup_ms=5, rep_ms=40, min_reps=5, max_reps=50, spot_checks=0)
        result = timing.time_calls(timing.make_clock(Device("cpu")), lambda: time.sleep(0.002), budget, lambda: None, 0)
        self.assertGreaterEqual(result.percentile(0.5), 1900.0)
        self.assertLess(result.percentile(0.1), 50_000.0)
        self.assertTrue(5 <= len(result.samples_us) <= 50)
        self.assertEqual(result.method, "host_clock")

    def test_repetitions_follow_the_budget(self):
        budget = timing.Budget(warmup_ms=1, rep_ms=30, min_reps=3, max_reps=400, spot_checks=0)
        clock = timing.make_clock(Device("cpu"))
        clock._flush = torch.empty(1024, dtype=torch.uint8)  # a negligible flush: the call alone sets the count
        slow = timing.time_calls(clock, lambda: time.sleep(0.01), budget, lambda: None, 0)
        fast = timing.time_calls(clock, lambda: None, budget, lambda: None, 0)
        self.assertEqual(len(slow.samples_us), 3)
        self.assertEqual(len(fast.samples_us), 400)
        self.assertGreaterEqual(fast.warmup, 1)

    def test_budgets_count_what_an_iteration_costs(self):
        budget = timing.Budget(warmup_ms=5, rep_ms=30, min_reps=3, max_reps=1000, spot_checks=0)
        # A fast call behind a slow input change: the change counts against the budget.
        slow_vary = timing.time_calls(timing.make_clock(Device("cpu")), lambda: None, budget,
                                      lambda: time.sleep(0.01), 0)
        self.assertEqual(len(slow_vary.samples_us), 3)
        self.assertEqual(slow_vary.warmup, 1)
        # A fast call behind the real cache flush (twice the last-level cache): the whole timing
        # stays near its 35 ms of budgets instead of a thousand flushes.
        started = time.perf_counter()
        fast = timing.time_calls(timing.make_clock(Device("cpu")), lambda: None, budget, lambda: None, 0)
        self.assertLess(time.perf_counter() - started, 0.5, f"{len(fast.samples_us)} reps, {fast.warmup} warm-up")

    def test_spot_checks_see_timed_outputs(self):
        budget = timing.Budget(warmup_ms=1, rep_ms=5, min_reps=20, max_reps=20, spot_checks=3)
        counter = iter(range(10_000))
        seen = []
        result = timing.time_calls(timing.make_clock(Device("cpu")), lambda: next(counter), budget, lambda: None, 1,
                                   spot_check=lambda i, n, out: seen.append((i, n, out)))
        self.assertEqual(result.spot_checks, len(seen))
        self.assertIn(19, [i for i, _, _ in seen])  # the last timed call is always checked
        self.assertTrue(all(n == 20 for _, n, _ in seen))
        self.assertGreaterEqual(len(seen), 3)

    def test_inputs_change_between_calls(self):
        task = load_task(str(TASKS / "relu.py"))
        target = torch.zeros(64, 4096)
        variation = InputVariation(task, Device("cpu"), [target], pool_size=3, seed=5)
        self.assertEqual(variation.sets, 3)
        seen = []
        for _ in range(6):
            variation.apply()
            seen.append(target.clone())
        for a, b in zip(seen, seen[1:]):
            self.assertFalse(torch.equal(a, b))
        # "mix" rows: a call's input is not exactly any one pre-generated set.
        self.assertFalse(any(torch.equal(seen[-1], s[0]) for s in variation.pool))

    def test_pool_mode_uses_whole_sets(self):
        task = load_task(str(TASKS / "relu.py"))
        task.timing_variation = "pool"
        target = torch.zeros(64, 4096)
        variation = InputVariation(task, Device("cpu"), [target], pool_size=2, seed=5)
        variation.apply()
        self.assertTrue(any(torch.equal(target, s[0]) for s in variation.pool))


class CheckTimingTest(WorkerTestCase):
    def test_timing_fields(self):
        result = self.check_result(TASKS / "softmax.cpp", TASKS / "softmax.py",
                                   policy={"warmup_ms": 5, "rep_ms": 30, "min_reps": 10, "max_reps": 60})
        t = result["timing"]
        self.assertEqual(t["method"], "host_clock")
        self.assertTrue(10 <= t["reps"] <= 60)
        self.assertLessEqual(t["p10_us"], t["p50_us"])
        self.assertLessEqual(t["p50_us"], t["p90_us"])
        self.assertLessEqual(t["min_us"], t["p10_us"])
        self.assertEqual(t["input_sets"], 3)
        self.assertGreaterEqual(t["spot_checks"], 1)
        self.assertIn("timing", result["seconds"])

    def test_replay_in_the_timing_loop_is_caught(self):
        result = self.check_result(ADVERSARIAL / "cpu" / "cache_after_warmup.cpp", TASKS / "relu.py",
                                   policy={"warmup_ms": 5, "rep_ms": 30, "min_reps": 30, "max_reps": 60})
        self.assertEqual(result["status"], "incorrect")
        self.assertRegex(result["reason"], r"^timed call \d+ of \d+ returned a wrong result for the inputs it was given")
        self.assertFalse(result["correctness"]["checks"]["timed_calls_verified"])
        self.assertTrue(result["correctness"]["checks"]["fresh_inputs"])  # it passed the correctness trials

    def test_no_timing_when_the_policy_says_so(self):
        result = self.check_result(TASKS / "relu.cpp", TASKS / "relu.py", policy={"timing": False})
        self.assertNotIn("timing", result)


class TimeReferenceTest(WorkerTestCase):
    def test_eager_reference(self):
        result = self.worker.result("time_reference", {"task": str(TASKS / "matmul.py"), "device": "cpu",
                                                       "mode": "eager", "policy": {"rep_ms": 20, "warmup_ms": 5}})
        self.assertEqual(result["mode"], "eager")
        self.assertGreater(result["timing"]["p50_us"], 0)
        self.assertEqual(result["timing"]["spot_checks"], 0)
        self.assertEqual(result["device"], "cpu")

    def test_compile_needs_torch_2(self):
        reply = self.worker.call("time_reference", {"task": str(TASKS / "relu.py"), "device": "cpu", "mode": "compile",
                                                    "policy": {"rep_ms": 20, "warmup_ms": 5}})
        if not hasattr(torch, "compile"):
            self.assertEqual(reply["error"]["code"], "unsupported")
            self.assertIn("torch.compile needs torch >= 2.0", reply["error"]["message"])
        else:
            self.assertGreater(reply["result"]["timing"]["p50_us"], 0)

    def test_a_broken_reference(self):
        reply = self.worker.call("time_reference", {"task": str(FIXTURES / "inputs_raise.py"), "device": "cpu",
                                                    "mode": "eager"})
        self.assertEqual(reply["error"]["code"], "task_error")

    def test_bad_mode(self):
        reply = self.worker.call("time_reference", {"task": str(TASKS / "relu.py"), "device": "cpu", "mode": "fast"})
        self.assertEqual(reply["error"]["code"], "bad_request")


if __name__ == "__main__":
    unittest.main()
