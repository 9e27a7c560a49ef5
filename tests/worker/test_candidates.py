"""The judge and its candidate processes, with real runners over real sockets: candidate code is
never mapped into the judge; each candidate gets a fresh process whose working folder was
emptied; a crash, a hang or an exhausted allocation ends only that process (the verdict carries
its signal and last words) and the next check is unaffected; launch specs come from
$HONE_CANDIDATE_LAUNCH (wrapped commands, signals reported as exit codes, a runner that does not
start); timing claims are bounded by the judge's clock."""
import json
import os
import sys
import tempfile
import time
import unittest
from pathlib import Path

from common import ADVERSARIAL, QUICK_TIMING, REPO, TASKS, WorkerTestCase
from kernel_build import build
from worker_client import PYTHON, WORKER_DIR, WorkerClient

sys.path.insert(0, WORKER_DIR)

from hone_worker.process_accounting import descendants, oom_kill_count  # noqa: E402

EVAL_CASES = REPO / "tests" / "eval" / "cases"


def launch_file(folder: str, python_argv=None, native_argv=None, carries_signal=False, slots=2) -> str:
    """A launch-spec file whose slots have scratch folders under `folder`."""
    specs = {"native": [], "python": []}
    env = dict(os.environ, PYTHONPATH=WORKER_DIR)
    for kind, argv in (("python", python_argv or [PYTHON, "-m", "hone_worker.runner"]), ("native", native_argv)):
        if argv is None:
            continue
        for k in range(slots):
            scratch = os.path.join(folder, f"{kind}-{k}")
            os.makedirs(scratch, exist_ok=True)
            specs[kind].append({"argv": argv, "env": env, "cwd": scratch, "scratch": scratch,
                                "exit_code_carries_signal": carries_signal})
    path = os.path.join(folder, "launch.json")
    with open(path, "w") as f:
        json.dump(specs, f)
    return path


class IsolationTest(WorkerTestCase):
    def test_the_judge_never_maps_candidate_code(self):
        built = build(TASKS / "relu.cpp")
        result = self.check_result(built, TASKS / "relu.py")
        self.assertEqual(result["status"], "correct")
        pid = self.worker.result("hello")["pid"]
        with open(f"/proc/{pid}/maps") as f:
            maps = f.read()
        self.assertNotIn(built.library, maps)
        self.assertNotIn("/kernel.so", maps)  # nor the copy staged for the candidate process

    def test_a_crash_a_hang_and_an_exhausted_allocation_end_only_their_process(self):
        judge = self.worker.result("hello")["pid"]
        task = EVAL_CASES / "relu_small.py"
        crash = self.check(EVAL_CASES / "segfault.cpp", task, policy={"timing": False})["result"]
        self.assertEqual(crash["status"], "runtime_error")
        self.assertEqual(crash["evidence"]["signal"], "SIGSEGV")
        self.assertIn("killed by SIGSEGV", crash["reason"])
        killed = self.check(EVAL_CASES / "sigkill.cpp", task, policy={"timing": False})["result"]
        self.assertEqual(killed["evidence"]["signal"], "SIGKILL")
        if oom_kill_count() is not None:  # /proc/vmstat has oom_kill (Linux 4.13 on): no kill rose it
            self.assertEqual(killed["evidence"].get("oom_kills"), 0, killed)
            self.assertIn("not by the kernel's out-of-memory killer", killed["reason"])
        else:
            self.assertIn("may have run out of memory", killed["reason"])
        garbage = self.check(EVAL_CASES / "sends_garbage.cpp", task, policy={"timing": False})["result"]
        self.assertEqual(garbage["status"], "runtime_error", garbage)
        self.assertIn("broke the judge's protocol during", garbage["reason"])
        self.assertIn("not JSON: b'not a reply'", garbage["reason"])
        self.assertEqual(garbage["evidence"].get("signal"), "SIGKILL")  # the judge's
        abort = self.check(EVAL_CASES / "abort.cpp", task, policy={"timing": False})["result"]
        self.assertEqual(abort["evidence"]["signal"], "SIGABRT")
        self.assertIn("candidate: giving up", "\n".join(abort["evidence"]["stderr_tail"]))
        params = {"task": str(task), "device": "cpu", "kernel": build(EVAL_CASES / "infinite_loop.cpp").kernel_params(),
                  "policy": {"timing": False}, "deadline_s": 3}
        hang = self.worker.call("check", params, 60)["result"]
        self.assertEqual(hang["status"], "timeout")
        self.assertIn("3.0 s deadline", hang["reason"])
        self.assertTrue(any("calling candidate forward" in line for line in hang["evidence"]["stderr_tail"]))
        memory = self.check(EVAL_CASES / "huge_alloc.cpp", task, policy={"timing": False})["result"]
        self.assertEqual(memory["status"], "runtime_error")
        self.assertIn("bad_alloc", memory["reason"])
        self.assertEqual(self.worker.result("hello")["pid"], judge)  # the judge went on
        after = self.check_result(EVAL_CASES / "good_relu.cpp", task)
        self.assertEqual(after["status"], "correct", after.get("reason"))

    def test_timing_is_bounded_by_the_judges_clock(self):
        result = self.check_result(TASKS / "relu.cpp", TASKS / "relu.py")
        bounds = result["timing"]["bounds"]["call"]
        self.assertGreater(bounds["null_us_per_call"], 0)
        self.assertGreater(bounds["claimed_us_per_call"], 0)
        self.assertTrue(result["correctness"]["checks"]["timing_bounded"])
        slowed = self.check_result(ADVERSARIAL / "cpu" / "slow_clock.cpp", TASKS / "relu.py")
        self.assertEqual(slowed["status"], "rejected", slowed.get("reason"))
        self.assertIn("judge's own clock measured", slowed["reason"])
        self.assertFalse(slowed["correctness"]["checks"]["timing_bounded"])


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class JudgeDeathTest(unittest.TestCase):
    def test_candidate_processes_die_with_the_judge(self):
        judge = WorkerClient()
        params = {"task": str(EVAL_CASES / "relu_small.py"), "device": "cpu", "deadline_s": 300,
                  "kernel": build(EVAL_CASES / "infinite_loop.cpp").kernel_params(), "policy": {"timing": False}}
        judge.send_raw(json.dumps({"id": 1, "method": "check", "params": params}).encode() + b"\n")
        deadline = time.monotonic() + 120
        while not any("calling candidate forward" in line for line in judge.stderr) and time.monotonic() < deadline:
            time.sleep(0.1)
        candidates = descendants(judge.process.pid)
        self.assertTrue(candidates)
        judge.process.kill()
        judge.close()
        deadline = time.monotonic() + 20
        while any(alive(p) for p in candidates) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertFalse([p for p in candidates if alive(p)], "candidate processes outlived the judge")


class LaunchSpecTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="hone-launch-test-")

    def judge(self, path: str) -> WorkerClient:
        judge = WorkerClient(env={"HONE_CANDIDATE_LAUNCH": path})
        self.addCleanup(judge.close)
        return judge

    def check(self, judge: WorkerClient, kernel: Path, task: Path, policy=None) -> dict:
        params = {"task": str(task), "device": "cpu", "kernel": build(kernel).kernel_params(),
                  "policy": dict(QUICK_TIMING, **(policy or {}))}
        reply = judge.call("check", params, 600)
        self.assertIn("result", reply, reply)
        return reply["result"]

    def test_a_wrapped_command_that_reports_signals_as_exit_codes(self):
        # sh reports a child killed by signal N as exit code 128 + N, as the sandbox's wrappers do.
        wrapper = ["/bin/sh", "-c", '"$@"; exit $?', "sh", PYTHON, "-m", "hone_worker.runner"]
        judge = self.judge(launch_file(self.folder, python_argv=wrapper, carries_signal=True))
        crash = self.check(judge, EVAL_CASES / "segfault.cpp", EVAL_CASES / "relu_small.py", {"timing": False})
        self.assertEqual(crash["evidence"].get("signal"), "SIGSEGV", crash)
        self.assertEqual(self.check(judge, TASKS / "relu.cpp", TASKS / "relu.py")["status"], "correct")

    def test_each_candidate_gets_a_fresh_process_and_an_emptied_folder(self):
        judge = self.judge(launch_file(self.folder))
        planted = self.check(judge, ADVERSARIAL / "cpu" / "leave_patch.cpp", TASKS / "relu.py")
        self.assertEqual(planted["status"], "incorrect")
        said = [line for line in judge.stderr if line.startswith("tamper: planting a hone_worker package")]
        self.assertTrue(said and ": done (pid" in said[-1], judge.stderr[-20:])
        self.assertEqual(self.check(judge, TASKS / "relu.cpp", TASKS / "relu.py")["status"], "correct")
        self.assertEqual(self.check(judge, ADVERSARIAL / "cpu" / "plain_wrong.cpp", TASKS / "relu.py")["status"],
                         "incorrect")
        self.assertFalse(any("planted hone_worker package runs" in line for line in judge.stderr))
        folders = [os.path.join(self.folder, f"python-{k}", "hone_worker") for k in range(2)]
        deadline = time.monotonic() + 30
        while any(os.path.exists(f) for f in folders) and time.monotonic() < deadline:
            time.sleep(0.2)  # the slot that ran it empties its folder as it starts its next process
        self.assertFalse(any(os.path.exists(f) for f in folders))

    def test_a_native_runner_that_does_not_start_leaves_raw_kernels_to_the_python_runner(self):
        judge = self.judge(launch_file(self.folder, native_argv=["/bin/false"]))
        result = self.check(judge, TASKS / "relu.cpp", TASKS / "relu.py", {"timing": False})
        self.assertEqual(result["status"], "correct", result.get("reason"))
        self.assertTrue(any("the native runner did not start" in line for line in judge.stderr), judge.stderr[-10:])

    def test_a_broken_launch_file_stops_the_judge_with_its_reason(self):
        path = os.path.join(self.folder, "launch.json")
        with open(path, "w") as f:
            f.write("{not json")
        judge = WorkerClient(env={"HONE_CANDIDATE_LAUNCH": path})
        code = judge.process.wait(timeout=120)
        judge.close()
        self.assertNotEqual(code, 0)
        self.assertIn("cannot read the candidate launch specs", "\n".join(judge.stderr))


if __name__ == "__main__":
    sys.exit(unittest.main())
