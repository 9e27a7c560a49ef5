"""bench/timing_truth's same-process instruments (issue 14, bar 2), on the CPU with the real hone,
its real runners and the real nvcc: bench/probes/self_events.cu preloaded into the native runner
times the runner's own hone_raw_forward on its first call and writes a row that timing_truth
matches to its check by the library's bytes and the call's argument sizes; a hooked task copy's
Model writes plain events from its runner on its first call and at the runner's exit. On a GPU
the same code times with CUDA events (scripts/gpu/timing.sh); here the host clock stands in."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from common import FIXTURES, REPO, TASKS

sys.path.insert(0, str(REPO / "bench" / "timing_truth"))
import timing_truth  # noqa: E402
from inprocess_hook import environment, rows_of  # noqa: E402

HONE_BIN = os.environ.get("HONE_BIN")
NVCC = os.environ.get("HONE_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PYTHON = os.environ.get("HONE_TEST_PYTHON", sys.executable)


@unittest.skipUnless(HONE_BIN and os.path.exists(os.path.join(HONE_BIN or "", "hone")), "needs the hone binary (HONE_BIN)")
class SameProcessInstrumentsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp(prefix="hone-bench-instruments-")
        self.addCleanup(shutil.rmtree, self.out, ignore_errors=True)
        self.hone = os.path.join(HONE_BIN, "hone")
        self.env = {**os.environ, "HONE_CACHE_DIR": os.path.join(self.out, "cache")}

    def check(self, *kernels, env):
        p = subprocess.run([self.hone, "check", *map(str, kernels), "--device", "cpu", "--no-sandbox", "--baselines",
                            "none", "--json", "--python", PYTHON], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]

    def test_self_events_row_per_candidate_matched_to_its_check(self):
        if not os.path.exists(NVCC):
            self.skipTest("needs nvcc")
        library = timing_truth.build_shared(str(REPO / "bench" / "probes" / "self_events.cu"), self.out, "-O2", "-I",
                                            str(REPO / "server" / "include"),
                                            str(REPO / "bench" / "timing_truth" / "call_events.cu"), "-ldl")
        rows = os.path.join(self.out, "rows")
        runner = os.environ.get("HONE_RUNNER") or os.path.join(HONE_BIN, "hone-runner")
        script = os.path.join(self.out, "runner.sh")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\nexport HONE_INPROCESS_OUT='{rows}'\nexport LD_PRELOAD='{library}'\nexec '{runner}' \"$@\"\n")
        os.chmod(script, 0o755)
        # Two raw kernels in one check: one row each, told apart by their bytes and sizes.
        verdicts = self.check(FIXTURES / "two_outputs.cpp", FIXTURES / "scalars.cpp", env={**self.env, "HONE_RUNNER": script})
        self.assertEqual([v.get("status") for v in verdicts], ["correct", "correct"], verdicts)
        found = {(r["library_fnv"], json.dumps(r["shapes"])): r for r in rows_of(rows)}
        self.assertEqual(len(found), 2, rows_of(rows))
        for v in verdicts:
            key = (timing_truth.fnv_of(v["compile"]["library"]), json.dumps(timing_truth.call_shapes(v)))
            self.assertIn(key, found, f"no row for {v['kernel']}")
            row = found[key]
            self.assertEqual(row["clock"], "host")
            self.assertEqual(row["calls"], 200)
            self.assertGreater(row["p50_us"], 0)
            self.assertLessEqual(row["p10_us"], row["p50_us"])
            self.assertIn("hone-runner", row["argv"][0])
        # Without the preload no row is written and the verdicts are the same.
        os.remove(rows)
        again = self.check(FIXTURES / "two_outputs.cpp", env=self.env)
        self.assertEqual(again[0]["status"], "correct")
        self.assertEqual(rows_of(rows), [])

    def test_hooked_task_measures_on_first_call_and_at_exit_in_the_runner(self):
        rows = os.path.join(self.out, "rows")
        path = timing_truth.hooked_task("tasks/relu", str(TASKS / "relu.py"), self.out)
        env = {**self.env, "HONE_SANDBOX": "none", **environment(rows, "cpu")}
        p = subprocess.run([self.hone, "task", path, "--time", "eager", "--device", "cpu", "--json", "--python", PYTHON],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        timed = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        call = timed[0]["reference"]["eager"]["call"]["p50_us"]
        runner_rows = [r for r in rows_of(rows) if "runner" in " ".join(r["argv"])]
        # The exit row may be cut here: the judge kills a runner 2 s after `exit`, and the CPU's
        # 300 calls, each after a 64 MiB flush, take longer on a busy CI machine (on a GPU the
        # flush is the device's); a plain process below checks the exit row.
        self.assertEqual([r["when"] for r in runner_rows][:1], ["first call"], rows_of(rows))
        self.assertIn([r["when"] for r in runner_rows], (["first call"], ["first call", "exit"]))
        self.assertEqual({r["tag"] for r in runner_rows}, {"tasks/relu"})
        self.assertEqual(len({r["pid"] for r in runner_rows}), 1)
        self.assertTrue(all(r["p50_us"] > 0 for r in runner_rows))
        results = {"tasks/relu": {"reference": {"hone_call_unsandboxed": call}}}
        timing_truth.same_process_events(rows, results)
        side = results["tasks/relu"]["reference"]
        self.assertEqual(side["events_same_process_us"], runner_rows[0]["p50_us"])
        self.assertEqual(side.get("events_same_process_exit_us"), runner_rows[-1]["p50_us"] if len(runner_rows) == 2 else None)
        # In a process that exits by itself, the hooked Model writes both rows, first call then exit.
        os.remove(rows)
        script = ("import importlib.util, sys\n"
                  f"spec = importlib.util.spec_from_file_location('hooked', {path!r})\n"
                  "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
                  "model = m.Model(*m.get_init_inputs()); x = m.get_inputs()\n"
                  "model(*x); model(*x)\n")
        p = subprocess.run([PYTHON, "-c", script], env={**self.env, **environment(rows, "cpu")}, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        own = rows_of(rows)
        self.assertEqual([(r["tag"], r["when"]) for r in own], [("tasks/relu", "first call"), ("tasks/relu", "exit")], own)
        self.assertEqual(len({r["pid"] for r in own}), 1)
        self.assertTrue(all(r["p50_us"] > 0 for r in own))
        # Without the variable the copy is the task: no rows, the same Model class.
        os.remove(rows)
        plain = subprocess.run([self.hone, "task", path, "--time", "eager", "--device", "cpu", "--json", "--python",
                                PYTHON], env={**self.env, "HONE_SANDBOX": "none"}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=600)
        self.assertEqual(plain.returncode, 0, plain.stderr[-2000:])
        self.assertFalse(os.path.exists(rows))

    def test_same_process_verdict_is_within_10_percent_of_either_measurement(self):
        self.assertTrue(timing_truth.same_process_verdict(10.5, 10.0)[0])
        self.assertFalse(timing_truth.same_process_verdict(11.5, 10.0)[0])
        self.assertFalse(timing_truth.same_process_verdict(8.9, 10.0)[0])
        self.assertTrue(timing_truth.same_process_verdict(21.5, 10.0, 20.0)[0])
        self.assertTrue(timing_truth.same_process_verdict(10.9, 10.0, 20.0)[0])
        self.assertFalse(timing_truth.same_process_verdict(15.0, 10.0, 20.0)[0])  # between, near neither
        self.assertFalse(timing_truth.same_process_verdict(23.0, 10.0, 20.0)[0])
        self.assertIn("then 20.00 at exit", timing_truth.same_process_verdict(15.0, 10.0, 20.0)[1])


class PlacementsTest(unittest.TestCase):
    """--ncu-placements (step 3d): the references' operands copied elsewhere, ncu's ranges per
    placement read back, and the report's lines; on the CPU with real torch and a real CSV file."""

    def test_placed_references_compute_the_same_from_operands_of_their_own(self):
        import torch

        torch.manual_seed(3)
        model = torch.nn.Sequential(torch.nn.Linear(256, 128), torch.nn.ReLU(), torch.nn.BatchNorm1d(128)).eval()
        inputs = [torch.randn(64, 256), 2]
        original = [t.data_ptr() for t in list(model.parameters()) + list(model.buffers())]
        with torch.no_grad():
            expected = model(inputs[0])
            calls, pools = timing_truth.placed_references(model, [inputs[0]], 3, device="cpu")
            self.assertEqual(len(calls), 3)
            for call in calls:
                self.assertTrue(torch.equal(call(), expected))
        self.assertEqual([t.data_ptr() for t in list(model.parameters()) + list(model.buffers())], original)
        for k, (call, pool) in enumerate(zip(calls, pools)):
            m, xs = call.__defaults__
            start, end = pool.data_ptr(), pool.data_ptr() + pool.numel()
            moved = list(m.parameters()) + list(m.buffers()) + xs
            for t in moved:  # every operand inside its placement's pool, none where the model's lie
                self.assertTrue(start <= t.data_ptr() < end and (t.data_ptr() - start) % 256 == 0, f"placement {k}")
                self.assertNotIn(t.data_ptr(), original)
        offsets = [next(m.parameters()).data_ptr() - pool.data_ptr() for (m, _), pool in
                   ((c.__defaults__, p) for c, p in zip(calls, pools))]
        self.assertEqual(len(set(offsets)), 3, offsets)  # each at an offset of its own

    def test_parse_placements_takes_each_placements_median_per_call(self):
        header = ['"ID"', '"Process ID"', '"Process Name"', '"Host Name"',
                  '"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"', '"Kernel Name"',
                  '"Metric Name"', '"Metric Unit"', '"Metric Value"']
        rows, n = [",".join(header)], 0

        def row(rng, kernel, ns):
            nonlocal n
            rows.append(f'"{n}","1","python3","h","{rng}","{kernel}","gpu__time_duration.sum","nsecond","{ns:,}"')
            n += 1

        for call in range(timing_truth.PLACED_CALLS):  # placement 0: 7.0 + 3.5, placement 1: 7.6 + 3.6
            row("tt|tasks/gemm_bias_relu|reference@p0", "sgemm", 7000 + (call % 2) * 64)
            row("tt|tasks/gemm_bias_relu|reference@p0", "splitK", 3500)
            row("tt|tasks/gemm_bias_relu|reference@p1", "sgemm", 7600)
            row("tt|tasks/gemm_bias_relu|reference@p1", "splitK", 3600)
        for call in range(timing_truth.PLACED_CALLS - 1):  # a placement cut short: left out
            row("tt|relu_2p16|reference@p0", "relu", 2500)
        row("tt|relu_2p16|reference", "relu", 2500)  # the bar's own range: not a placement
        path = os.path.join(tempfile.mkdtemp(prefix="hone-placements-"), "ncu_placements.csv")
        self.addCleanup(shutil.rmtree, os.path.dirname(path), ignore_errors=True)
        with open(path, "w") as f:
            f.write("==PROF== profiling\n" + "\n".join(rows) + "\n")
        found = timing_truth.parse_placements(path)
        self.assertEqual(set(found), {"tasks/gemm_bias_relu"})
        self.assertAlmostEqual(found["tasks/gemm_bias_relu"][0], 10.532, places=3)
        self.assertAlmostEqual(found["tasks/gemm_bias_relu"][1], 11.2, places=3)

    def test_placement_lines_say_whether_hone_lies_within_ncus_range(self):
        results = {
            "tasks/gemm_bias_relu": {"reference": {"hone_device": 13.3, "ncu_us": 14.1, "ncu_placements_us": [13.2, 14.0]}},
            "tasks/matmul": {"reference": {"hone_device": 9.0, "ncu_us": 11.6, "ncu_placements_us": [11.5, 11.7]}},
            "relu_2p16": {"reference": {"hone_device": 2.9, "ncu_us": 3.0}},  # not placed: no line
        }
        lines = timing_truth.placement_lines(results)
        self.assertEqual(len(lines), 3, lines)
        self.assertIn("hone within", lines[0])
        self.assertIn("13.20-14.00 at 2 others", lines[0])
        self.assertIn("hone outside", lines[1])
        self.assertEqual(lines[2], "timing_truth: device_within_ncu_placements: INFO (1/2 references; not a bar)")


if __name__ == "__main__":
    unittest.main()
