"""The judge's stages in-process, on real torch tensors: comparison and its messages (structure
and aliasing from a candidate process's `returned` metadata), poisoning (including glibc's
perturbation making stale memory visible), policy validation, the analysis of GPU activity
records (shaped like a `records` reply), kernel names, percentiles, the bounds on timing claims,
the input sets of timed calls and the checks of their output slots, launch specs."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import torch
from torch.autograd.profiler_util import EventList, FunctionEvent

from common import FIXTURES, REPO, TASKS
from worker_client import WORKER_DIR

sys.path.insert(0, WORKER_DIR)

from hone_worker import bounds, compare, faults, kernel_counters, kernel_records, launch, machine_load, poison, process_accounting, records, signature, timed_runs, timing  # noqa: E402
from hone_worker import pool as candidate_pool  # noqa: E402
from hone_worker import candidate_process  # noqa: E402
from hone_worker.candidate_process import Reply  # noqa: E402
from hone_worker.policy import Policy  # noqa: E402
from hone_worker.task import load_task  # noqa: E402
from hone_worker.timed_checks import SlotChecker  # noqa: E402
from hone_worker.variation import InputSets, sets_fitting  # noqa: E402
from hone_worker.devices import Device, parse_device  # noqa: E402
from hone_worker.errors import BadRequest, WorkerError  # noqa: E402

TOL = compare.Tolerance(1e-4, 1e-4)


def _spin(cpu_s: float) -> None:
    end = time.process_time() + cpu_s
    while time.process_time() < end:
        pass


class MachineLoadTest(unittest.TestCase):
    """Issue 14: a baseline timed while other processes load the CPU is told apart from this
    process's own work (its runner children included), by CPU time, not by how the timing spread."""

    SPIN_S = 0.6

    def test_a_process_outside_the_tree_is_other_load(self):
        read, write = os.pipe()
        window = machine_load.LoadWindow()
        child = os.fork()
        if child == 0:  # the child forks the spinner and exits: the spinner is init's, not ours
            if os.fork() == 0:
                os.close(read)
                _spin(self.SPIN_S)
                os.write(write, b"x")
            os._exit(0)
        os.close(write)
        os.waitpid(child, 0)
        self.assertEqual(os.read(read, 1), b"x")
        os.close(read)
        time.sleep(0.05)  # the spinner's last ticks reach /proc/stat
        load = window.finish()
        self.assertIsNotNone(load)
        self.assertGreaterEqual(load["other_cpu_s"], 0.8 * self.SPIN_S, load)
        self.assertAlmostEqual(load["other_cpu_share"], load["other_cpu_s"] / (load["seconds"] * load["cpus"]),
                               delta=1e-9)

    def test_this_processes_children_are_not_other_load(self):
        before = machine_load._tree_jiffies(machine_load._processes(), os.getpid())
        child = os.fork()
        if child == 0:
            _spin(self.SPIN_S)
            os._exit(0)
        os.waitpid(child, 0)  # reaped: its time is in this process's cutime now
        gained = (machine_load._tree_jiffies(machine_load._processes(), os.getpid()) - before) / machine_load._TICK
        self.assertGreaterEqual(gained, 0.8 * self.SPIN_S, "a reaped child's CPU time counts as the tree's")


    def test_with_roots_this_processes_other_children_are_load_and_the_roots_are_not(self):
        # The bounds' window (timed_runs): the candidate's tree is the measured work; a sibling of
        # it in the judge's tree (the pool warming the next runner, a runner still exiting) is load.
        def spinner():
            child = os.fork()
            if child == 0:
                _spin(self.SPIN_S)
                os._exit(0)
            return child
        sibling = spinner()
        window = machine_load.LoadWindow(roots=[])
        whole_tree = machine_load.LoadWindow()
        os.waitpid(sibling, 0)
        load, tree_load = window.finish(), whole_tree.finish()
        # Both windows saw the same interval (and whatever else the machine ran): they differ by the sibling.
        self.assertGreaterEqual(load["other_cpu_s"] - tree_load["other_cpu_s"], 0.6 * self.SPIN_S, (load, tree_load))
        read, write = os.pipe()
        candidate = os.fork()
        if candidate == 0:  # spins, says so, and stays alive (a candidate is alive when its pass ends)
            os.close(read)
            _spin(self.SPIN_S)
            os.write(write, b"x")
            time.sleep(30)
            os._exit(0)
        os.close(write)
        window, without = machine_load.LoadWindow(roots=[candidate]), machine_load.LoadWindow(roots=[])
        self.assertEqual(os.read(read, 1), b"x")
        time.sleep(0.05)
        load, counted = window.finish(), without.finish()
        os.kill(candidate, 9)
        os.waitpid(candidate, 0)
        os.close(read)
        self.assertGreaterEqual(counted["other_cpu_s"] - load["other_cpu_s"], 0.6 * self.SPIN_S,
                                ("the root's own tree is no load", load, counted))


class UsableCpusTest(unittest.TestCase):
    """The CPUs the bounds count (bounds.cpu_beyond_calls) and the load is read over: what a process
    of this job can run on, which a candidate cannot widen (its cpuset), not the host's CPUs."""

    PROBE = ("import json, os, sys; sys.path.insert(0, sys.argv[1]); from hone_worker import machine_load; "
             "print(json.dumps({'usable': sorted(machine_load.usable_cpus()), 'own': sorted(os.sched_getaffinity(0)), "
             "'count': os.cpu_count(), 'stat_cpus': machine_load._system_busy()[1]}))")

    def probe(self, prefix=()):
        out = subprocess.run([*prefix, sys.executable, "-c", self.PROBE, WORKER_DIR], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        return json.loads(out)

    def test_a_taskset_narrows_the_judge_but_not_what_a_candidate_could_use(self):
        here = self.probe()
        first = min(os.sched_getaffinity(0))
        pinned = self.probe(["taskset", "-c", str(first)])
        self.assertEqual(pinned["own"], [first], "the probe ran pinned")
        self.assertEqual(pinned["usable"], here["usable"], "a process may widen a taskset mask again: not a limit")
        self.assertEqual(here["stat_cpus"], len(here["usable"]), "/proc/stat is read over the usable CPUs")
        self.assertLessEqual(set(here["usable"]), set(range(here["count"])))

    def test_a_cpuset_is_the_limit(self):
        # A cpuset cgroup of one CPU (cgroup v1's cpuset hierarchy, as root): os.cpu_count() still
        # counts the host's CPUs; usable_cpus and the load's CPUs are the one.
        root = "/sys/fs/cgroup/cpuset"
        group = os.path.join(root, f"hone-test-{os.getpid()}")
        try:
            os.mkdir(group)
        except OSError as exc:
            self.skipTest(f"no cpuset cgroup can be made here ({exc}); the taskset test still runs")
        try:
            first = min(os.sched_getaffinity(0))
            with open(os.path.join(root, "cpuset.mems")) as f:
                mems = f.read()
            for name, value in (("cpuset.cpus", str(first)), ("cpuset.mems", mems)):
                with open(os.path.join(group, name), "w") as f:
                    f.write(value)
            enter = f"echo $$ > {group}/cgroup.procs && exec \"$@\""
            confined = self.probe(["sh", "-c", enter, "sh"])
            self.assertEqual(confined["usable"], [first])
            self.assertEqual(confined["stat_cpus"], 1)
            self.assertEqual(confined["count"], os.cpu_count(), "os.cpu_count() does not see the cpuset")
        finally:
            os.rmdir(group)


class CompareTest(unittest.TestCase):
    def test_within_tolerance(self):
        expected = torch.linspace(-1, 1, 100)
        got = expected + 5e-5
        result = compare.compare_outputs([got], [expected], [TOL], raw_buffers=False)
        self.assertTrue(result.passed)
        self.assertAlmostEqual(result.max_abs_error, 5e-5, delta=1e-6)

    def test_first_mismatch_and_count(self):
        expected = torch.zeros(4, 8)
        got = expected.clone()
        got[1, 3] = 0.5
        got[2, 0] = 0.25
        mismatch = compare.compare_outputs([got], [expected], [TOL], raw_buffers=False).mismatch
        self.assertEqual(mismatch.index, [1, 3])
        self.assertEqual(mismatch.count, 2)
        self.assertEqual(mismatch.message, "out[1,3]: got 0.5, expected 0; 2 of 32 elements out of tolerance "
                                           "(atol=0.0001, rtol=0.0001)")

    def test_large_outputs_are_compared_in_chunks(self):
        original = compare.CHUNK_ELEMENTS
        compare.CHUNK_ELEMENTS = 1000
        try:
            expected = torch.zeros(50, 100)
            got = expected.clone()
            got[30, 7] = 1.0
            got[45, 99] = float("nan")
            got[12, 0] = 2.0
            result = compare.compare_outputs([got], [expected], [TOL], raw_buffers=False)
            self.assertEqual(result.mismatch.kind, "nonfinite")
            self.assertEqual(result.mismatch.index, [45, 99])
            got[45, 99] = 0.0
            result = compare.compare_outputs([got], [expected], [TOL], raw_buffers=False)
            self.assertEqual((result.mismatch.index, result.mismatch.count), ([12, 0], 2))
            self.assertEqual(result.max_abs_error, 2.0)
        finally:
            compare.CHUNK_ELEMENTS = original

    def test_nan_matches_nan_and_inf_matches_inf(self):
        expected = torch.tensor([float("nan"), float("inf"), 1.0])
        self.assertTrue(compare.compare_outputs([expected.clone()], [expected], [TOL], False).passed)
        got = torch.tensor([1.0, float("inf"), 1.0])
        self.assertEqual(compare.compare_outputs([got], [expected], [TOL], False).mismatch.kind, "tolerance")
        got = torch.tensor([float("nan"), float("-inf"), 1.0])
        self.assertFalse(compare.compare_outputs([got], [expected], [TOL], False).passed)

    def test_raw_poison_is_told_apart_from_computed_nan(self):
        out = torch.empty(10)
        poison.poison_outputs([out])
        self.assertTrue(bool(torch.isnan(out).all()))
        out[:5] = float("nan")
        result = compare.compare_outputs([out], [torch.ones(10)], [TOL], raw_buffers=True)
        self.assertEqual(result.mismatch.kind, "unwritten")
        self.assertEqual(result.mismatch.index, [5])
        out[5:] = 1.0
        self.assertEqual(compare.compare_outputs([out], [torch.ones(10)], [TOL], True).mismatch.kind, "nonfinite")

    def test_every_raw_dtype_has_a_poison(self):
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64,
                      torch.int16, torch.int8, torch.uint8, torch.bool):
            t = torch.zeros(7, dtype=dtype)
            poison.poison_outputs([t])
            self.assertTrue(bool(poison.still_poisoned(t).all()), dtype)
            if dtype.is_floating_point:
                self.assertTrue(bool(torch.isnan(t).all()), dtype)

    def test_allocator_poison_patterns(self):
        t = torch.empty(4)
        t.view(torch.int32).fill_(0x7F7F7F7F)
        self.assertTrue(bool(poison.allocator_poisoned(t).all()))
        t.view(torch.int32).fill_(-1)
        self.assertTrue(bool(poison.allocator_poisoned(t).all()))
        self.assertFalse(bool(poison.allocator_poisoned(torch.ones(4)).any()))
        self.assertFalse(bool(poison.allocator_poisoned(torch.full((4,), 127, dtype=torch.uint8)).any()))

    def test_tolerance_defaults_and_overrides(self):
        self.assertEqual(compare.tolerance_for(torch.float32, None, None), compare.Tolerance(1e-4, 1e-4))
        self.assertEqual(compare.tolerance_for(torch.bfloat16, None, None), compare.Tolerance(1e-2, 1e-2))
        self.assertEqual(compare.tolerance_for(torch.int64, None, None), compare.Tolerance(0.0, 0.0))
        self.assertEqual(compare.tolerance_for(torch.float16, 0.5, None), compare.Tolerance(0.5, 1e-2))

    def test_structure_and_aliasing_from_returned_metadata(self):
        x = torch.rand(4, 4)
        ref = torch.relu(x)

        def returned(shape=(4, 4), dtype="float32", strides=(4, 1), device="cpu", aliases=(), same_as=(),
                     overlaps_self=False):
            return {"shape": list(shape), "dtype": dtype, "strides": list(strides), "device": device,
                    "aliases": list(aliases), "same_as": list(same_as), "overlaps_self": overlaps_self, "storage": 1}

        self.assertIsNone(compare.structure_problem([returned()], [ref]))
        self.assertIn("has shape [16]", compare.structure_problem([returned(shape=(16,), strides=(1,))], [ref]))
        self.assertIn("has dtype float64", compare.structure_problem([returned(dtype="float64")], [ref]))
        self.assertIn("returned 2 output(s)", compare.structure_problem([returned(), returned()], [ref]))
        self.assertIn("is on cuda:0", compare.structure_problem([returned(device="cuda:0")], [ref]))
        self.assertIn("shares memory with the argument x",
                      compare.aliasing_problem([returned(aliases=[0])], [ref], ["x"], [x.clone()]))
        self.assertIsNone(compare.aliasing_problem([returned(aliases=[0])], [x], ["x"], [x]))  # the reference aliases too
        self.assertIn("overlaps itself", compare.aliasing_problem([returned(overlaps_self=True)], [ref], ["x"], [x]))
        self.assertIn("shares memory with out0", compare.aliasing_problem([returned(), returned(same_as=[0])],
                                                                           [ref, ref.clone()], ["x"], [x]))
        self.assertEqual(compare.stride_differences([returned(strides=(1, 4))], [ref]),
                         ["out has strides [1, 4], the reference's [4, 1]"])

    def test_a_torch_result_in_a_judge_slot_has_both_poisons(self):
        slot = torch.empty(8)
        poison.poison_outputs([slot])  # never copied in: the judge's own poison
        result = compare.compare_outputs([slot], [torch.ones(8)], [TOL], raw_buffers=True, allocator_poison=True)
        self.assertEqual(result.mismatch.kind, "unwritten")
        slot.view(torch.int32).fill_(0x7F7F7F7F)  # copied from memory the kernel allocated and never wrote
        result = compare.compare_outputs([slot], [torch.ones(8)], [TOL], raw_buffers=True, allocator_poison=True)
        self.assertEqual(result.mismatch.kind, "unwritten")
        self.assertEqual(compare.compare_outputs([slot], [torch.ones(8)], [TOL], True, False).mismatch.kind, "tolerance")

    def test_quick_path_agrees_with_the_full_comparison(self):
        expected = torch.linspace(-1, 1, 1000)
        for got in (expected.clone(), expected + 5e-5, expected + 1e-3):
            quick = compare.compare_outputs([got], [expected], [TOL], raw_buffers=False)
            original = compare.CHUNK_ELEMENTS
            compare.CHUNK_ELEMENTS = 100  # past the quick path's size: the full comparison
            try:
                full = compare.compare_outputs([got], [expected], [TOL], raw_buffers=False)
            finally:
                compare.CHUNK_ELEMENTS = original
            self.assertEqual(quick.passed, full.passed)
            self.assertAlmostEqual(quick.max_abs_error, full.max_abs_error, places=6)


class MallocPerturbationTest(unittest.TestCase):
    def stale_fraction(self) -> float:
        """Largest share of a fresh tensor that still holds a just-freed tensor's values, over a few
        tries (glibc's first large free also moves its mmap threshold)."""
        fractions = []
        for _ in range(4):
            a = torch.full((100_000,), 1.5)
            del a
            b = torch.empty(100_000)
            fractions.append(float((b == 1.5).float().mean()))
            del b
        return max(fractions)

    def test_stale_memory_is_visible_without_and_poisoned_with_perturbation(self):
        with poison.malloc_perturbation() as active:
            if not active:
                self.skipTest("the C library has no mallopt(M_PERTURB)")
            self.assertEqual(self.stale_fraction(), 0.0)
            fresh = torch.empty(100_000)
            self.assertTrue(bool(poison.allocator_poisoned(fresh).all()))
        self.assertGreater(self.stale_fraction(), 0.9)  # glibc's default: the freed block comes back as it was


class PolicyTest(unittest.TestCase):
    def test_defaults(self):
        policy = Policy.from_params(None)
        self.assertEqual(policy.seeds, [1, 2, 3])
        self.assertTrue(policy.timing)
        self.assertEqual(Policy.from_params({"seeds": [4, 5, 6], "atol": None}).seeds, [4, 5, 6])

    def test_rejections(self):
        for params in ({"seeds": "1"}, {"seeds": [1.5]}, {"rtol": "x"}, {"max_reps": 0}, {"min_reps": 9, "max_reps": 3},
                       {"warmup_ms": -1}, {"bogus": 1}):
            with self.assertRaises(BadRequest, msg=params):
                Policy.from_params(params)


def kernel(name, stream, start, end):
    return records.Activity(name, stream, start, end)


class ActivityAnalysisTest(unittest.TestCase):
    """Activities shaped like a `records` reply on the H200: stream 7 is the caller's (legacy
    default); hone_spin holds it before the call, hone_marker follows the call."""

    SPIN = kernel("hone_spin", 7, 0.0, 400.0)

    def marker(self, start):
        return kernel("hone_marker", 7, start, start + 1.0)

    def test_joined_work_on_the_caller_stream(self):
        acts = [self.SPIN, kernel("void relu_kernel(float const*, float*, long)", 7, 401.0, 420.0), self.marker(421.0)]
        result = records.analyze_activities(acts, raw_form=True, own_kernels=["relu_kernel"], timed_us=21.0)
        self.assertIsNone(result.escape)
        self.assertEqual(result.kernel_time["own_us"], 19.0)
        self.assertEqual(result.kernel_time["own_share"], 1.0)

    def test_side_stream_that_does_not_wait_for_the_caller(self):
        acts = [self.SPIN, kernel("relu_kernel", 13, 20.0, 60.0), self.marker(401.0)]
        result = records.analyze_activities(acts, True, ["relu_kernel"], timed_us=2.0)
        self.assertIn("work escapes the timer", result.escape)
        self.assertIn("started before the caller's stream 7 reached the call", result.escape)

    def test_side_stream_the_caller_does_not_wait_for(self):
        acts = [self.SPIN, kernel("relu_kernel", 13, 401.0, 900.0), self.marker(402.0)]
        result = records.analyze_activities(acts, False, ["relu_kernel"], timed_us=3.0)
        self.assertIn("was still running", result.escape)

    def test_raw_form_must_use_the_given_stream(self):
        acts = [self.SPIN, kernel("relu_kernel", 13, 401.0, 420.0), self.marker(421.0)]
        result = records.analyze_activities(acts, True, ["relu_kernel"], timed_us=21.0)
        self.assertIn("work escapes the timer", result.escape)
        self.assertIn("relu_kernel (stream 13), not on the caller's current stream 7", result.escape)
        self.assertIn("the hone::Stream forward is given", result.escape)

    def test_torch_form_side_stream_is_rejected_even_when_it_did_not_race(self):
        # The H200 run: a pool-stream kernel ran after the spin and before the marker in the
        # profiled call, so no race showed; it must be rejected all the same.
        acts = [self.SPIN, kernel("relu_side_kernel", 55, 401.0, 420.0), self.marker(421.0)]
        result = records.analyze_activities(acts, False, ["relu_side_kernel"], timed_us=21.0)
        self.assertIn("work escapes the timer", result.escape)
        self.assertIn("relu_side_kernel (stream 55), not on the caller's current stream 7", result.escape)
        self.assertIn("at::cuda::getCurrentCUDAStream()", result.escape)

    def test_library_kernels_without_own_names(self):
        acts = [self.SPIN, kernel("void at::native::vectorized_elementwise_kernel<4, clamp_min>", 7, 401.0, 431.0),
                kernel("my_kernel(float*)", 7, 432.0, 442.0), self.marker(443.0)]
        result = records.analyze_activities(acts, False, [], timed_us=41.0)
        self.assertAlmostEqual(result.kernel_time["own_share"], 0.25)
        self.assertEqual([k["own"] for k in result.kernel_time["kernels"]], [False, True])

    def test_a_records_reply(self):
        reply = {"activities": [{"name": "hone_spin", "kind": "kernel", "stream": 7, "start_us": 0.0, "end_us": 400.0},
                                {"name": "Memcpy DtoD", "kind": "memcpy", "stream": 7, "start_us": 401.0,
                                 "end_us": 405.0},
                                {"name": "hone_marker", "kind": "kernel", "stream": 7, "start_us": 406.0,
                                 "end_us": 407.0}],
                 "caller_stream": 7, "timed_us": 5.0, "library_ops": ["aten::relu x1"]}
        result = records.records_from_reply(reply, raw_form=False, own_kernels=[])
        self.assertIsNone(result.escape)
        self.assertEqual(result.library_ops, ["aten::relu x1"])
        self.assertEqual(result.kernel_time["own_us"], 4.0)  # copies count as the call's own work
        self.assertIn("malformed", records.records_from_reply({"activities": [{"name": 3}]}, True, []).escape)

    def test_kernel_base_names(self):
        self.assertEqual(records.kernel_base_name("void ns::relu_kernel<float, 4>(float const*, float*, long)"),
                         "relu_kernel")
        self.assertEqual(records.kernel_base_name("softmax_kernel(float const*, float*, long)"), "softmax_kernel")
        self.assertEqual(records.kernel_base_name("_Z11relu_kernelPKfPfl"), "relu_kernel")
        # A namespaced template (tasks/attention): the function, not its namespace (the H200's
        # profile of causal.cu called its own kernel a library's when the namespace was taken).
        mangled = "_ZN14hone_attention16attention_kernelI13__nv_bfloat16Li128ELi4ELi32ELi1E6CausalEvPKT_S5_S5_PS3_iiif"
        self.assertEqual(records.kernel_base_name(mangled), "attention_kernel")
        self.assertEqual(records.kernel_base_name(mangled),
                         records.kernel_base_name("void hone_attention::attention_kernel<__nv_bfloat16, 128, 4, 32, 1, "
                                                  "Causal>(__nv_bfloat16 const*, int)"))
        self.assertEqual(records.kernel_base_name("relu_kernel"), "relu_kernel")


class LibraryOpsTest(unittest.TestCase):
    def test_top_level_compute_ops_inside_forward(self):
        x = torch.randn(64, 64)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            torch.relu(x)
            torch.empty_like(x)
            x.t().contiguous()
            torch.matmul(x, x)
        ops = records.library_ops(prof.events(), None)
        self.assertIn("aten::relu x1", ops)
        self.assertTrue(any(op.startswith("aten::matmul") for op in ops))
        self.assertFalse(any("clamp_min" in op or "empty" in op or "contiguous" in op for op in ops), ops)

    @staticmethod
    def events(*specs, listed=None):
        """FunctionEvents from (name, thread, start_us, end_us), ids in spec order (a thread's ops take
        ids as they start), with the cpu_parent tree torch's profiler builds from them when the
        profiler lists them in `listed` order (spec indices; spec order by default)."""
        evts = [FunctionEvent(id=i, name=name, thread=thread, start_us=start, end_us=end)
                for i, (name, thread, start, end) in enumerate(specs, 1)]
        EventList([evts[i] for i in listed or range(len(evts))])._build_tree()
        return evts

    def test_an_op_tying_forward_counts_even_as_its_profiler_parent(self):
        # torch sorts a thread's events by (start, -end) and keeps list order on ties, so an op
        # listed before forward with forward's exact whole-us range becomes forward's parent.
        fwd, relu = self.events(("ns::forward", 1, 10, 11), ("aten::relu", 1, 10, 11), listed=[1, 0])
        self.assertIs(fwd.cpu_parent, relu)
        self.assertEqual(records.library_ops([relu, fwd], "ns"), ["aten::relu x1"])

    def test_whole_us_times_that_break_the_profilers_nesting(self):
        # Recorded from adversarial/cpu/library_op_torch.cpp: start and duration are cut to whole us
        # separately, so relu's end passes forward's by 1 us (relu loses its parent), or clamp_min's
        # passes relu's (clamp_min looks like a second op of forward's).
        relu_out = self.events(("ns::forward", 1, 63, 119), ("aten::relu", 1, 66, 120),
                               ("aten::clamp_min", 1, 68, 119))
        self.assertIsNone(relu_out[1].cpu_parent)
        clamp_out = self.events(("ns::forward", 1, 60, 113), ("aten::relu", 1, 61, 112),
                                ("aten::clamp_min", 1, 63, 113))
        self.assertEqual(clamp_out[2].cpu_parent.name, "ns::forward")
        # Half-open ranges: a 0 us op at forward's last us is outside it.
        zero = self.events(("ns::forward", 1, 10, 12), ("aten::relu", 1, 12, 12), ("aten::clamp_min", 1, 12, 12))
        self.assertIsNone(zero[1].cpu_parent)
        for evts in (relu_out, clamp_out, zero):
            self.assertEqual(records.library_ops(evts, "ns"), ["aten::relu x1"])

    def test_ops_outside_forward_or_on_another_thread_are_not_counted(self):
        evts = self.events(("aten::add", 1, 2, 5), ("ns::forward", 1, 10, 20), ("aten::mul", 2, 12, 14),
                           ("aten::relu", 1, 12, 15), ("aten::sub", 1, 25, 30))
        self.assertEqual(records.library_ops(evts, "ns"), ["aten::relu x1"])
        self.assertEqual(records.library_ops(evts, "other"), [])
        self.assertEqual(records.library_ops(evts, None), ["aten::add x1", "aten::mul x1", "aten::relu x1",
                                                           "aten::sub x1"])


class TimingStatisticsTest(unittest.TestCase):
    def test_percentiles_and_spread(self):
        t = timing.Timing([float(v) for v in range(1, 101)], warmup=3, method="host_clock", spot_checks=0, input_sets=2)
        data = t.to_json()
        self.assertAlmostEqual(data["p50_us"], 50.5)
        self.assertAlmostEqual(data["p10_us"], 10.9)
        self.assertAlmostEqual(data["p90_us"], 90.1)
        self.assertEqual((data["min_us"], data["max_us"], data["reps"]), (1.0, 100.0, 100))
        self.assertAlmostEqual(t.spread, (90.1 - 10.9) / 50.5)
        # The median's 95% interval: the order statistics ranked 40 and 61 of 100 (the standard table's).
        summary = t.summary()
        self.assertEqual((summary["p50_low_us"], summary["p50_high_us"]), (40.0, 61.0))

    def test_samples_travel_in_call_order_only_when_asked(self):
        t = timing.Timing([3.0, 1.0, 2.0], warmup=0, method="cupti_gpu_time_duration", spot_checks=0, input_sets=1)
        with mock.patch.dict(os.environ, {timing.SAMPLES_VARIABLE: "1"}):
            self.assertEqual(t.summary()["samples_us"], [3.0, 1.0, 2.0])
        with mock.patch.dict(os.environ, {timing.SAMPLES_VARIABLE: "0"}):
            self.assertNotIn("samples_us", t.summary())
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop(timing.SAMPLES_VARIABLE, None)
            self.assertNotIn("samples_us", t.summary())

    def test_median_interval_narrows_with_more_calls_and_covers_few(self):
        self.assertEqual(timing.median_interval([3.0, 1.0, 2.0]), (1.0, 3.0))
        wide = timing.median_interval([float(v % 10) for v in range(100)])
        narrow = timing.median_interval([float(v % 10) for v in range(10000)])
        self.assertLessEqual(narrow[1] - narrow[0], wide[1] - wide[0])
        self.assertLessEqual(narrow[0], 4.5)
        self.assertGreaterEqual(narrow[1], 4.0)


class BoundsTest(unittest.TestCase):
    """The judge's clock against a candidate process's timing claims (microseconds)."""

    def test_loop_cost_from_two_null_ops(self):
        cost = bounds.LoopCost.from_two(2, 1_000.0, 12, 6_000.0)
        self.assertAlmostEqual(cost.per_call_us, 500.0)
        self.assertAlmostEqual(cost.fixed_us, 0.0)
        self.assertEqual(bounds.LoopCost.from_two(2, 900.0, 12, 800.0).per_call_us, 0.0)  # noise never goes negative

    def test_honest_claims_pass_slowed_clocks_are_rejected_with_both_numbers(self):
        null = bounds.LoopCost(fixed_us=2_000.0, per_call_us=40.0)
        honest = bounds.bound("call", [100.0] * 10, 2_000.0 + 10 * (40.0 + 104.0), null, cuda=True)
        self.assertIsNone(honest.violation())
        self.assertAlmostEqual(honest.judge_us, 104.0)
        slowed = bounds.bound("call", [2.0] * 10, 2_000.0 + 10 * (40.0 + 100.0), null, cuda=True)
        why = slowed.violation()
        self.assertIn("reported 2.0 us per call", why)
        self.assertIn("measured 100.0 us per call", why)
        self.assertIn("loop's own cost of 40.0 us per call", why)

    def test_small_differences_are_never_rejected(self):
        # 3x below, but only 18 us per call: launch overheads and noise at the microsecond scale.
        b = bounds.bound("call", [9.0] * 10, 10 * 27.0, bounds.LoopCost(0.0, 0.0), cuda=True)
        self.assertIsNone(b.violation())
        # The CPU's flush is a large, noisy part of every call: as much again as its own cost is allowed.
        b = bounds.bound("call", [80.0] * 10, 10 * (5_000.0 + 4_900.0), bounds.LoopCost(0.0, 5_000.0), cuda=False)
        self.assertIsNone(b.violation())
        b = bounds.bound("call", [80.0] * 10, 10 * (5_000.0 + 5_300.0), bounds.LoopCost(0.0, 5_000.0), cuda=False)
        self.assertIsNotNone(b.violation())

    def test_a_busy_machine_explains_a_gap_up_to_a_few_null_loops(self):
        limit = (bounds.BUSY_LOOP_SLOWDOWN - 1) * 2_000.0 + 2_020.0  # the loop at 3x its null cost, beyond the allowance
        self.assertTrue(bounds.Bound("call", 4, 100.0, 100.0 + limit, 2_000.0, 2_020.0).busy_excess_explained())
        self.assertFalse(bounds.Bound("call", 4, 100.0, 101.0 + limit, 2_000.0, 2_020.0).busy_excess_explained())
        self.assertFalse(bounds.Bound("call", 4, 100.0, 3_000.0, None, 20.0).busy_excess_explained())  # no null loop
        b = bounds.bound("call", [80.0] * 4, 4 * 9_000.0, bounds.LoopCost(0.0, 2_000.0), cuda=False)
        self.assertEqual(bounds.Bound.from_json(b.to_json()), b)

    def test_cpu_time_beside_the_loop_is_held_to_the_calls_parallelism(self):
        # Three calls of 2 ms on 2 CPUs: the candidate's other threads may use 2 x 6 ms (+ 500 us + 1%).
        calls, window = [2_000.0] * 3, 15_000.0
        self.assertIsNone(bounds.cpu_beyond_calls(calls, window, 0.0, 2))  # one thread
        self.assertIsNone(bounds.cpu_beyond_calls(calls, window, 6_500.0, 2))  # a second thread in every call
        # Two workers in every call while the main thread waits for them: every CPU busy in the calls.
        self.assertIsNone(bounds.cpu_beyond_calls(calls, window, 12_600.0, 2))
        why = bounds.cpu_beyond_calls(calls, window, 12_700.0, 2)
        self.assertIn("work beside the timed calls", why)
        self.assertIn("used 12700 us of CPU", why)
        self.assertIn("allow 12650 us", why)
        # One CPU: a second thread shares it with the calls, so it can use at most their time.
        self.assertIsNone(bounds.cpu_beyond_calls(calls, window, 6_600.0, 1))
        self.assertIsNotNone(bounds.cpu_beyond_calls(calls, window, 6_700.0, 1))
        # A copy that claims 50 us while a thread of its own computed for 2 ms beside the flush.
        self.assertIsNotNone(bounds.cpu_beyond_calls([50.0] * 3, window, 6_000.0, 2))
        # On 64 CPUs the same calls could have kept 64 threads busy: 9 600 us (+ 650) explain it,
        # which is why the count is the job's usable CPUs (MachineLoadTest), not the host's.
        self.assertIsNone(bounds.cpu_beyond_calls([50.0] * 3, window, 6_000.0, 64))
        self.assertIsNone(bounds.cpu_beyond_calls([50.0] * 3, window, None, 2))  # unread: no claim either way

    def test_device_time_above_call_time(self):
        self.assertIsNone(bounds.device_over_call(5.0, 5.2))
        self.assertIn("above the call time", bounds.device_over_call(9.0, 5.0))

    def test_cache_keeps_a_measurement_for_a_while(self):
        cache = bounds.LoopCostCache()
        cache.put(("native", "cpu"), bounds.LoopCost(1.0, 2.0))
        self.assertEqual(cache.get(("native", "cpu")).per_call_us, 2.0)
        self.assertIsNone(cache.get(("python", "cpu")))


def stub_session(notes=None):
    """A candidate session for a TimedRun made without one: its notes appended to `notes`; its
    process is this one (the tree a load window leaves out)."""
    process = type("P", (), {"pid": os.getpid()})()
    return type("S", (), {"note": lambda self, text: (notes.append(text) if notes is not None else None),
                          "process": process})()


class BoundedPassRetryTest(unittest.TestCase):
    """A pass the bounds reject is taken again (up to BOUND_RETRIES times) against the null loop
    measured again: a machine that got busier since the null loop was measured is no claim of the
    candidate's; false claims fail every pass."""

    def run_measured(self, claimed_us: float, actual_us: float, loop_now_us: float, fresh_costs, asked):
        """TimedRun._measured with its passes simulated: calls that take `actual_us` and claim
        `claimed_us`; the loop's own work now costs `loop_now_us` per call on the judge's clock,
        while the null loop measured earlier says a tenth of that; the null loop measured again
        gives `fresh_costs` in turn. Each request for the null loop's cost is appended to `asked`
        (True: measured again)."""
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        notes = []
        run.session = stub_session(notes)
        run.progress = lambda text: None
        run.device = parse_device("cpu")
        fresh = list(fresh_costs)

        def one_pass(mode, reps, cost):
            result = timed_runs.Pass(mode, samples_us=[claimed_us] * reps)
            result.bounds.append(bounds.bound(mode, result.samples_us, reps * (loop_now_us + actual_us), cost, cuda=False))
            if result.bounds[0].violation():
                raise faults.CandidateFailure("rejected", result.bounds[0].violation(), check="timing_bounded")
            return result

        def loop_cost(mode, again):
            asked.append(again)
            return fresh.pop(0) if again else bounds.LoopCost(0.0, loop_now_us / 10)

        run._pass = one_pass
        return run._measured("call", 10, loop_cost), notes

    def test_an_honest_pass_on_a_busier_machine_passes_against_the_null_loop_measured_again(self):
        asked = []
        passed, notes = self.run_measured(80.0, 80.0, 1_000.0, [bounds.LoopCost(0.0, 1_000.0)], asked)
        self.assertEqual(asked, [False, True])
        self.assertEqual(passed.samples_us, [80.0] * 10)
        self.assertIn("pass out of bounds", notes[0])

    def test_a_machine_busy_through_one_retry_still_passes_on_the_next(self):
        asked = []
        stale = bounds.LoopCost(0.0, 100.0)  # measured again in a quieter moment than the pass
        passed, _ = self.run_measured(80.0, 80.0, 1_000.0, [stale, bounds.LoopCost(0.0, 1_000.0)], asked)
        self.assertEqual(asked, [False, True, True])
        self.assertEqual(passed.samples_us, [80.0] * 10)

    def test_false_claims_fail_every_pass(self):
        asked = []
        with self.assertRaises(faults.CandidateFailure) as raised:
            self.run_measured(2.0, 300.0, 50.0, [bounds.LoopCost(0.0, 50.0)] * timed_runs.BOUND_RETRIES, asked)
        self.assertIn("reported 2.0 us per call", raised.exception.reason)
        self.assertEqual(asked, [False] + [True] * timed_runs.BOUND_RETRIES)

    def test_cpu_time_beside_the_loop_is_not_taken_again(self):
        # The kernel's accounting of the candidate's threads is no clock a busy machine slows.
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        run.session = stub_session()
        run.progress = lambda text: None
        passes = []

        def one_pass(mode, reps, cost):
            passes.append(cost)
            raise faults.CandidateFailure("rejected", "work beside the timed calls: ...", check="timing_bounded",
                                          evidence={"cpu_beside_loop_us": 9_000.0})
        run._pass = one_pass
        asked = []
        with self.assertRaises(faults.CandidateFailure):
            run._measured("call", 10, lambda mode, again: asked.append(again) or bounds.LoopCost(0.0, 10.0))
        self.assertEqual((len(passes), asked), (1, [False]))

    def test_without_a_clean_process_for_the_null_loop_the_rejection_stands(self):
        asked = []
        with self.assertRaises(faults.CandidateFailure) as raised:
            self.run_measured(80.0, 80.0, 1_000.0, [None], asked)
        self.assertEqual(raised.exception.check, "timing_bounded")
        self.assertEqual(asked, [False, True])


class BusyMachineBoundTest(unittest.TestCase):
    """A pass still out of bounds after its retries while other processes kept the machine busy, by
    a gap such a machine explains (the loop's own work at up to BUSY_LOOP_SLOWDOWN times its null
    cost per call, beyond the allowance), withholds the time: TimingWithheld, no rejection, and the verdict stays
    correct without a time. A larger gap, or a quiet machine, is still rejected. The CI case: an
    honest CPU ReLU claiming 99.3 us per call, judged at 3554.6 us beyond a null loop of 2281.4 us
    while the flush ran 2.5x slower than that null loop under CI's load."""

    NULL_US = 2_281.4
    BUSY = {"busy": True, "other_cpu_share": 0.62, "other_cpu_s": 1.24, "cpus": 2, "seconds": 1.0}
    IDLE = {"busy": False, "other_cpu_share": 0.03, "other_cpu_s": 0.06, "cpus": 2, "seconds": 1.0}

    def measure(self, claimed_us: float, actual_us: float, loop_now_us: float, machine: dict):
        """TimedRun._measured with its real passes over simulated CPU ops: calls that take
        `actual_us` and claim `claimed_us`, while the loop's own work costs `loop_now_us` per call
        (the null loop, measured again or not, says NULL_US); every pass's load window says
        `machine`. Returns the pass and the windows opened."""
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        run.session = stub_session()
        run.progress = lambda text: None
        run.device = parse_device("cpu")
        run.slot_count, run.flush_bytes, run._copy_us, run._others_us = 1000, 1, 0.0, None
        run.sets = type("Sets", (), {"draw": lambda self: None})()

        def op(mode, entries, warmup, settle, position, what):
            run._wall_us = len(entries) * (loop_now_us + actual_us)
            return {"times_us": [claimed_us] * len(entries), "method": "host_clock"}, run._wall_us
        run._op = op
        windows = []

        class Window:
            def __init__(self, roots=None):
                windows.append(self)

            def finish(self):
                return dict(machine) if machine else None

        with mock.patch.object(timed_runs, "LoadWindow", Window):
            return run._measured("call", 12, lambda mode, fresh: bounds.LoopCost(0.0, self.NULL_US)), windows

    def test_an_honest_kernel_on_a_busy_machine_gets_no_time_and_no_rejection(self):
        slowed = 2.5 * self.NULL_US  # the flush under load, against the null loop measured just before
        with self.assertRaises(faults.TimingWithheld) as raised:
            self.measure(99.3, 99.3, slowed, self.BUSY)
        withheld = raised.exception
        self.assertNotIsInstance(withheld, faults.CandidateFailure)
        for text in ("judge's own clock", "3521.4 us per call", "claimed 99.3 us", "2281.4 us per call", "62%",
                     "check again on a quieter machine"):
            self.assertIn(text, withheld.reason)
        self.assertAlmostEqual(withheld.evidence["bound"]["judge_us_per_call"], 99.3 + slowed - self.NULL_US)
        self.assertEqual(withheld.evidence["machine_load"]["other_cpu_share"], 0.62)

    def test_a_gap_beyond_what_the_busy_machine_explains_is_still_rejected(self):
        # A claim of 2 us for calls of 12 ms: 12 ms per call beyond the loop's own cost, over the
        # 2 x 2281 us + 2301 us (20 us + 100% of the null loop) a busy machine explains.
        with self.assertRaises(faults.CandidateFailure) as raised:
            self.measure(2.0, 12_000.0, self.NULL_US, self.BUSY)
        self.assertEqual((raised.exception.status, raised.exception.check), ("rejected", "timing_bounded"))
        self.assertIn("reported 2.0 us per call", raised.exception.reason)
        self.assertEqual(raised.exception.evidence["bound"]["claimed_us_per_call"], 2.0)

    def test_the_same_gap_on_a_quiet_machine_is_still_rejected(self):
        with self.assertRaises(faults.CandidateFailure) as raised:
            self.measure(99.3, 99.3, 2.5 * self.NULL_US, self.IDLE)
        self.assertEqual((raised.exception.status, raised.exception.check), ("rejected", "timing_bounded"))
        self.assertIn("reported 99.3 us per call", raised.exception.reason)
        bound = raised.exception.evidence["bound"]  # the least violation's numbers
        self.assertEqual((bound["mode"], bound["calls"], bound["null_us_per_call"]), ("call", 4, self.NULL_US))

    def test_a_load_that_cannot_be_read_changes_nothing(self):
        with self.assertRaises(faults.CandidateFailure):
            self.measure(99.3, 99.3, 2.5 * self.NULL_US, None)

    def test_a_withheld_time_leaves_a_correct_verdict_without_timing_and_with_the_flag(self):
        from hone_worker import check, results
        from hone_worker.correctness import Correctness

        class Timing:
            run = type("R", (), {"stages": {}})()

            def measure(self):
                raise faults.TimingWithheld("call time withheld: ... check again on a quieter machine", {"bound": {}})

        correctness = Correctness([], results.Checks(), [compare.Tolerance(1e-4, 1e-4)])
        correctness.checks.passed("inputs_unchanged")
        verdict = check._Verdict(type("Sig", (), {"to_json": lambda self, language: {}})(), "cpp", {})
        request = type("Req", (), {"progress": lambda self, stage, message: None})()
        with mock.patch.object(check, "run_correctness", lambda *args: correctness):
            out = check._stages(None, parse_device("cpu"), None, None, Policy.from_params({"records": False}),
                                Timing(), verdict, request, time.perf_counter())
        self.assertEqual(out["status"], "correct")
        self.assertNotIn("timing", out)
        self.assertEqual([f["id"] for f in out["flags"]], ["timing_withheld"])
        self.assertIn("quieter machine", out["flags"][0]["message"])
        self.assertNotIn("timing_bounded", out["correctness"]["checks"])


def held_trace(calls, stream=7, side=None, copies=True, mixes=0, flush=True):
    """Activities shaped like a held `time` op's with kernel_records: hone_hold, then per call an
    input copy and `mixes` hone_mix kernels, hone_flush, the call's kernels (`calls[i]`: (name,
    duration) on the caller's stream, gaps of 1 us), hone_marker and a torch-form result copy.
    `side`: (call, name, start offset, duration) on stream 99."""
    acts, t = [records.Activity("hone_hold", stream, 0.0, 50.0)], 50.0
    for i, kernels in enumerate(calls):
        if copies:
            acts.append(records.Activity("Memcpy DtoD", stream, t, t + 3.0, "memcpy"))
            t += 3.0
        for _ in range(mixes):
            acts.append(records.Activity("hone_mix", stream, t, t + 4.0))
            t += 4.0
        if flush:
            acts.append(records.Activity("hone_flush", stream, t, t + 20.0))
            t += 20.0
        begin = t
        for name, d in kernels:
            t += 1.0
            acts.append(records.Activity(name, stream, t, t + d))
            t += d
        if side and side[0] == i:
            acts.append(records.Activity(side[1], 99, begin + side[2], begin + side[2] + side[3]))
        acts.append(records.Activity("hone_marker", stream, t + 0.5, t + 1.5))
        t += 1.5
        acts.append(records.Activity("Memcpy DtoD", stream, t, t + 2.0, "memcpy"))  # the result's copy, after the marker
        t += 2.0
    return acts


class KernelRecordsTest(unittest.TestCase):
    """Device time as each held call's busy time in its activity records (issue 14): between its
    flush and its marker, gaps and hone's own work (copies, flush, marker) excluded."""

    def test_each_call_is_the_sum_of_its_kernels(self):
        acts = held_trace([[("relu", 2.5)], [("relu", 2.75)], [("a", 3.0), ("b", 4.0)]])
        times, why = kernel_records.per_call_us(acts, 3, flushed=True)
        self.assertEqual(why, "")
        self.assertEqual(times, [2.5, 2.75, 7.0])

    def test_overlapping_side_stream_work_counts_once(self):
        acts = held_trace([[("a", 10.0)], [("a", 10.0)]], side=(1, "b", 2.0, 4.0))
        times, _ = kernel_records.per_call_us(acts, 2, flushed=True)
        self.assertEqual(times, [10.0, 10.0])  # b lies inside a's interval
        acts = held_trace([[("a", 10.0)], [("a", 10.0)]], side=(1, "b", 9.0, 6.0))
        times, _ = kernel_records.per_call_us(acts, 2, flushed=True)
        self.assertEqual(times, [10.0, 14.0])  # b runs 4 us past a

    def test_a_side_stream_kernel_spanning_calls_is_hidden_by_the_median_but_rejected(self):
        # A kernel of the candidate's on its own stream that starts in call 0 and runs on through
        # the next calls' flushes (computing their outputs beside the loop) counts in call 0 alone.
        acts = held_trace([[("copy_out", 2.0)]] * 5, side=(0, "precompute", 1.0, 150.0))
        times, _ = kernel_records.per_call_us(acts, 5, flushed=True)
        self.assertEqual(sorted(times)[2], 2.0)  # the median is the copy's
        why = kernel_records.off_caller_stream(acts)
        self.assertIn("work escapes the timer", why)
        self.assertIn("precompute (stream 99)", why)
        self.assertIn("150.0 us", why)
        # On the caller's stream (hone's result copies after each marker included) nothing is beside the loop.
        self.assertIsNone(kernel_records.off_caller_stream(held_trace([[("relu", 2.0)]] * 5)))

    def test_work_placed_between_a_calls_inputs_and_its_flush_is_rejected(self):
        def trace(extra):
            """hone_hold; per call: result copy, input copy, two hone_mix, (extra), flush, kernel, marker."""
            acts, t = [records.Activity("hone_hold", 7, 0.0, 10.0)], 10.0
            for i in range(3):
                for name, d, kind in [("copy_result", 2.0, "kernel"), ("Memcpy DtoD", 3.0, "memcpy"),
                                      ("hone_mix", 4.0, "kernel"), ("hone_mix", 4.0, "kernel")] + \
                        ([extra] if extra and i == 1 else []) + [("hone_flush", 20.0, "kernel"),
                                                                ("copy_out", 2.0, "kernel"), ("hone_marker", 1.0, "kernel")]:
                    acts.append(records.Activity(name, 7, t, t + d, kind))
                    t += d
            return acts
        self.assertIsNone(kernel_records.work_among_inputs(trace(None), True))
        # A kernel of the candidate's on the caller's stream after the inputs are made: it reads
        # them and computes the call's output before the timer starts; copy_out then is all the call does.
        why = kernel_records.work_among_inputs(trace(("precompute", 40.0, "kernel")), True)
        self.assertIn("precompute (kernel, stream 7, 40.0 us)", why)
        self.assertIn("escapes the timer", why)
        # Between the two mixes, too; and without a flush, up to the last mix.
        between = trace(None)
        first_mix = next(a for a in between[8:] if a.name == "hone_mix")  # call 1's first mix
        between.append(records.Activity("peek", 7, first_mix.end_us - 0.5, first_mix.end_us - 0.1))
        self.assertIn("peek", kernel_records.work_among_inputs(between, True))
        self.assertIsNone(kernel_records.work_among_inputs([a for a in trace(("late", 5.0, "kernel"))
                                                            if a.name != "hone_flush"], False))
        # No mixes: nothing marks where a call's inputs begin.
        unmixed = [a for a in trace(("precompute", 40.0, "kernel")) if a.name != "hone_mix"]
        self.assertIsNone(kernel_records.work_among_inputs(unmixed, True))

    def test_a_timed_op_with_side_stream_work_is_rejected_even_when_records_cannot_be_attributed(self):
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        run.session = stub_session()
        run.flush_bytes, run.sets = 1, type("Sets", (), {"mixed": []})()
        acts = held_trace([[("copy_out", 2.0)]] * 3, side=(1, "precompute", 1.0, 80.0))
        reply = {"activities": [{"name": a.name, "stream": a.stream, "start_us": a.start_us, "end_us": a.end_us,
                                 "kind": a.kind} for a in acts]}
        for note in ("", "an earlier op's records could not be attributed"):
            with self.assertRaises(faults.CandidateFailure) as raised:
                run._kernel_times(reply, [3.0, 3.0, 3.0], timed_runs.Pass("device", records_note=note))
            self.assertEqual((raised.exception.status, raised.exception.check), ("rejected", "timer_covers_work"))
        honest = held_trace([[("relu", 2.0)]] * 3)
        reply = {"activities": [{"name": a.name, "stream": a.stream, "start_us": a.start_us, "end_us": a.end_us,
                                 "kind": a.kind} for a in honest]}
        self.assertEqual(run._kernel_times(reply, [3.0, 3.0, 3.0], timed_runs.Pass("device")), [2.0, 2.0, 2.0])

    def test_records_that_do_not_match_the_schedule_give_no_device_time(self):
        acts = held_trace([[("relu", 2.5)], [("hone_marker", 0.5)]])  # a candidate kernel named like hone's
        times, why = kernel_records.per_call_us(acts, 2, flushed=True)
        self.assertIsNone(times)
        self.assertIn("3 marker kernels for 2 calls", why)
        times, why = kernel_records.per_call_us([a for a in held_trace([[("x", 1.0)]]) if a.name != "hone_hold"], 1, True)
        self.assertIsNone(times)
        self.assertIn("0 hold kernels", why)

    def test_without_a_flush_the_call_starts_after_the_last_marker(self):
        acts = held_trace([[("x", 2.0)], [("y", 3.0)]], copies=False)
        acts = [a for a in acts if a.name != "hone_flush" and not a.is_memory_op]
        times, _ = kernel_records.per_call_us(acts, 2, flushed=False)
        self.assertEqual(times, [2.0, 3.0])

    def test_the_inputs_hone_mix_kernels_are_not_the_calls_work(self):
        acts = held_trace([[("relu", 2.5)], [("relu", 3.0)]], mixes=2)
        self.assertEqual(kernel_records.per_call_us(acts, 2, True, mixes=2), ([2.5, 3.0], ""))
        self.assertEqual(kernel_records.kernels_per_call(acts, 2, True, mixes=2), 1)
        unflushed = [a for a in held_trace([[("x", 2.0)], [("y", 3.0)]], mixes=1, flush=False) if not a.is_memory_op]
        self.assertEqual(kernel_records.per_call_us(unflushed, 2, False, mixes=1), ([2.0, 3.0], ""))

    def test_a_candidate_kernel_named_hone_mix_is_never_taken_for_hones(self):
        for flush in (True, False):
            acts = held_trace([[("relu", 2.5)], [("relu", 2.5), ("hone_mix", 40.0)]], mixes=1, flush=flush)
            times, why = kernel_records.per_call_us(acts, 2, flush, mixes=1)
            self.assertIsNone(times, flush)
            self.assertIn("3 hone_mix kernels for 2 calls of 1 fresh inputs", why)
        # The right count, but the candidate's one inside call 1 stands for call 2's missing one.
        moved = held_trace([[("relu", 2.5), ("hone_mix", 40.0)], [("relu", 2.5)]], mixes=1)
        genuine = [a for a in moved if a.name == "hone_mix" and a.end_us - a.start_us == 4.0]
        moved = [a for a in moved if a is not genuine[1]]
        times, why = kernel_records.per_call_us(moved, 2, True, mixes=1)
        self.assertIsNone(times)
        self.assertIn("hone_mix", why)

    def test_a_reply_without_records_says_why(self):
        self.assertEqual(kernel_records.parse({"kernel_records_error": "no CUPTI"}), (None, "no CUPTI"))
        activities, why = kernel_records.parse({"activities": [{"name": 3}]})
        self.assertIsNone(activities)
        self.assertIn("malformed", why)

    def run_pass(self, replies, flush=True):
        """TimedRun._pass of mode device over `replies` (one per op), the ops simulated."""
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        notes = []
        run.session = stub_session(notes)
        run.device = parse_device("cpu")
        run.slot_count, run.flush_bytes = 1000, 1 if flush else 0
        run._held_calls = lambda: 1000
        run.sets = type("Sets", (), {"draw": lambda self: None, "mixed": (),
                                     "overwrite_one": lambda self, entries: entries})()
        run._copy_us = 0.0
        queue = list(replies)
        run._op = lambda mode, entries, warmup, settle, position, what: (queue.pop(0), 1000.0)
        count = sum(len(r["times_us"]) for r in replies)
        return run._pass("device", count, None), notes

    def test_a_cpu_op_whose_other_threads_worked_beside_the_calls_is_rejected(self):
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        run.session = stub_session()
        run.device = parse_device("cpu")
        run.slot_count, run.flush_bytes = 1000, 1
        run.sets = type("Sets", (), {"draw": lambda self: None, "mixed": ()})()
        run._copy_us = 0.0
        beside = [0.0, 9_000.0]  # the second op: 9 ms of another thread's CPU beside 3 calls of 50 us

        def op(mode, entries, warmup, settle, position, what):
            run._wall_us, run._others_us = 20_000.0, beside.pop(0)
            return {"times_us": [50.0] * len(entries)}, 20_000.0
        run._op = op
        with self.assertRaises(faults.CandidateFailure) as caught:
            run._pass("call", 6, None)
        self.assertEqual((caught.exception.status, caught.exception.check), ("rejected", "timing_bounded"))
        self.assertIn("used 9000 us of CPU", caught.exception.reason)
        self.assertEqual(caught.exception.evidence["cpu_beside_loop_us"], 9_000.0)

    def test_a_device_pass_takes_the_records_and_keeps_the_events(self):
        reply = {"times_us": [4.5, 4.6, 4.4], "method": "cuda_events_held_stream",
                 "activities": [a.__dict__ for a in held_trace([[("k", 2.5)]] * 3)]}
        result, _ = self.run_pass([reply])
        self.assertEqual(result.samples_us, [2.5, 2.5, 2.5])
        self.assertEqual(result.events_us, [4.5, 4.6, 4.4])
        self.assertEqual(result.method, "cupti_kernel_records")

    def test_a_device_pass_without_records_falls_back_to_the_events_in_every_op(self):
        good = {"times_us": [4.5] * 3, "activities": [a.__dict__ for a in held_trace([[("k", 2.5)]] * 3)],
                "method": "cuda_events_held_stream"}
        bad = {"times_us": [4.0] * 3, "kernel_records_error": "CUPTI is busy", "method": "cuda_events_held_stream"}
        result, notes = self.run_pass([good, bad])
        self.assertEqual(result.samples_us, [4.5] * 3 + [4.0] * 3)
        self.assertEqual(result.method, "cuda_events_held_stream")
        self.assertTrue(any("CUPTI is busy" in n for n in notes))

    def test_a_hold_that_timed_out_gives_no_device_time_with_or_without_records(self):
        timed_out = {"times_us": [4.0] * 3, "kernel_records_error": "CUPTI is busy", "spin_timed_out": True,
                     "method": "cuda_events_held_stream"}
        result, notes = self.run_pass([timed_out])
        self.assertEqual(result.samples_us, [])
        self.assertTrue(any("hold timed out" in n for n in notes))

    def test_records_far_above_the_events_are_rejected(self):
        reply = {"times_us": [3.0] * 3, "method": "cuda_events_held_stream",
                 "activities": [a.__dict__ for a in held_trace([[("k", 9.0)]] * 3)]}
        with self.assertRaises(faults.CandidateFailure) as raised:
            self.run_pass([reply])
        self.assertEqual(raised.exception.status, "rejected")
        self.assertIn("p50 9.00 us", raised.exception.reason)


def counted_ranges(calls, numbered=True, each_kernel=False, flush_us=20.0):
    """Ranges shaped like a counted `time` op's: per call hone_flush, the call's kernels
    (`calls[i]`: (name, us)), hone_marker; with `each_kernel`, hone_flush before each kernel
    instead; `numbered`: named "0", "1", ... as auto ranges are."""
    out = []
    for kernels in calls:
        if not each_kernel:
            out.append(("hone_flush", flush_us))
        for kernel in kernels:
            if each_kernel:
                out.append(("hone_flush", flush_us))
            out.append(kernel)
        out.append(("hone_marker", 0.8))
    return [(str(i), us) for i, (_, us) in enumerate(out)] if numbered else out


class KernelCountersTest(unittest.TestCase):
    """Device time as ncu counts it (issue 14, the default on CUDA): each call's kernels'
    gpu__time_duration, attributed by position (auto ranges are numbered) from the number of
    kernels the records saw per call; it replaces the records when both agree."""

    def test_each_call_is_the_sum_of_its_kernels(self):
        ranges = counted_ranges([[("a", 3.0), ("b", 4.0)], [("a", 2.5), ("b", 1.0)]])
        self.assertEqual(kernel_counters.per_call_us(ranges, 2, True, 2), ([7.0, 3.5], ""))
        named = counted_ranges([[("relu", 2.5)], [("relu", 2.0)]], numbered=False)
        self.assertEqual(kernel_counters.per_call_us(named, 2, True, 1), ([2.5, 2.0], ""))

    def test_ranges_that_do_not_match_the_schedule_are_not_attributed(self):
        one_more = counted_ranges([[("relu", 2.5)], [("relu", 2.5), ("extra", 1.0)]])
        times, why = kernel_counters.per_call_us(one_more, 2, True, 1)
        self.assertIsNone(times)
        self.assertIn("hold 7 kernel ranges", why)
        shifted = counted_ranges([[("relu", 2.5)], [("hone_marker", 0.5)]], numbered=False)
        times, why = kernel_counters.per_call_us(shifted, 2, True, 1)
        self.assertIsNone(times)
        self.assertIn("do not stand where", why)

    def test_without_a_flush_a_call_is_its_kernels_then_the_marker(self):
        ranges = [("0", 2.0), ("1", 0.5), ("2", 3.0), ("3", 0.5)]
        self.assertEqual(kernel_counters.per_call_us(ranges, 2, False, 1), ([2.0, 3.0], ""))

    def test_the_inputs_hone_mix_ranges_come_first_and_are_not_counted(self):
        ranges = [("0", 9.0), ("1", 20.0), ("2", 2.0), ("3", 0.5), ("4", 9.0), ("5", 20.0), ("6", 3.0), ("7", 0.5)]
        self.assertEqual(kernel_counters.per_call_us(ranges, 2, True, 1, mixes=1), ([2.0, 3.0], ""))
        named = [("hone_mix", 9.0), ("hone_flush", 20.0), ("relu", 2.0), ("hone_marker", 0.5)] * 2
        self.assertEqual(kernel_counters.per_call_us(named, 2, True, 1, mixes=1), ([2.0, 2.0], ""))
        misplaced = [("relu", 9.0), ("hone_flush", 20.0), ("hone_mix", 2.0), ("hone_marker", 0.5)] * 2
        times, why = kernel_counters.per_call_us(misplaced, 2, True, 1, mixes=1)
        self.assertIsNone(times)
        self.assertIn("do not stand where", why)

    def test_the_flush_reads_twice_the_l2_unless_told_otherwise(self):
        with mock.patch.dict(os.environ, {timed_runs.FLUSH_MULTIPLE_VARIABLE: "8"}):
            self.assertEqual(timed_runs.flush_l2_multiple(), 8)
        for bad in ("0", "17", "x", ""):
            with mock.patch.dict(os.environ, {timed_runs.FLUSH_MULTIPLE_VARIABLE: bad}):
                self.assertEqual(timed_runs.flush_l2_multiple(), 2, bad)
        with mock.patch.dict(os.environ, clear=False):
            os.environ.pop(timed_runs.FLUSH_MULTIPLE_VARIABLE, None)
            self.assertEqual(timed_runs.flush_l2_multiple(), 2)

    def test_each_kernel_of_a_call_has_its_own_median(self):
        calls = [[("a", 3.0), ("b", 4.0)], [("a", 2.0), ("b", 1.0)], [("a", 5.0), ("b", 1.5)]]
        numbered = counted_ranges(calls, each_kernel=True)
        kernels = kernel_counters.per_kernel_p50(numbered, 3, True, 2, 0, True, ["gemm", "clamp"])
        self.assertEqual(kernels, [{"name": "gemm", "p50_us": 3.0}, {"name": "clamp", "p50_us": 1.5}])
        self.assertAlmostEqual(sum(k["p50_us"] for k in kernels), 4.5)  # not the call's median (5.5): each its own
        named = counted_ranges(calls, numbered=False)
        self.assertEqual([k["name"] for k in kernel_counters.per_kernel_p50(named, 3, True, 2, 0, False, ["x", "y"])],
                         ["a", "b"])  # a range's own name first
        self.assertEqual(kernel_counters.per_kernel_p50(counted_ranges(calls), 3, True, 2)[1], {"name": "", "p50_us": 1.5})

    def test_the_records_say_how_many_kernels_each_call_launched(self):
        acts = held_trace([[("a", 1.0), ("b", 1.0)]] * 3)
        self.assertEqual(kernel_records.kernels_per_call(acts, 3, True), 2)
        uneven = held_trace([[("a", 1.0)], [("a", 1.0), ("b", 1.0)]])
        self.assertIsNone(kernel_records.kernels_per_call(uneven, 2, True))
        outside = held_trace([[("a", 1.0)]] * 2) + [records.Activity("late", 7, 1e6, 1e6 + 1)]
        self.assertEqual(kernel_records.kernels_per_call(outside, 2, True), 1)  # after the last result: hone's
        on_a_side_stream = held_trace([[("a", 1.0)]] * 2) + [records.Activity("late", 99, 1e6, 1e6 + 1)]
        self.assertIsNone(kernel_records.kernels_per_call(on_a_side_stream, 2, True))
        before = [records.Activity("early", 7, 51.0, 52.0)] + held_trace([[("a", 1.0)]] * 2)
        self.assertIsNone(kernel_records.kernels_per_call(before, 2, True))

    def test_the_python_runners_result_handling_after_a_marker_is_not_outside_the_calls(self):
        """The python runner overwrites the arguments after one call's marker (fill kernels) and
        copies results there: hone's work, between the marker and the next call's inputs."""
        acts = held_trace([[("relu", 2.0)]] * 3, mixes=1)
        second_marker = [a for a in acts if a.name == "hone_marker"][1]
        fills = [records.Activity("fill_kernel", 7, second_marker.end_us + 0.1 + k, second_marker.end_us + 0.6 + k)
                 for k in range(2)]
        self.assertEqual(kernel_records.kernels_per_call(acts + fills, 3, True, mixes=1), 1)
        self.assertIsNone(kernel_records.kernels_per_call(acts + fills, 3, False, mixes=1))  # no flush: no such span

    def test_a_reply_without_counters_says_why(self):
        self.assertEqual(kernel_counters.parse({"kernel_counters_error": "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}),
                         (None, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"))
        ranges, why = kernel_counters.parse({"counter_ranges": [{"name": "k", "gpu_time_us": -1}]})
        self.assertIsNone(ranges)
        self.assertIn("malformed", why)

    def test_flushed_before_each_kernel_a_call_is_every_other_range(self):
        ranges = counted_ranges([[("a", 3.0), ("b", 4.0)], [("a", 2.5), ("b", 1.0)]], each_kernel=True)
        self.assertEqual(len(ranges), 2 * kernel_counters.ranges_per_call(2, True, 0, each_kernel=True))
        self.assertEqual(kernel_counters.per_call_us(ranges, 2, True, 2, 0, each_kernel=True), ([7.0, 3.5], ""))
        self.assertEqual(kernel_counters.per_call_us(ranges, 2, True, 2)[0], None)  # not the once-a-call layout
        named = counted_ranges([[("a", 3.0), ("b", 4.0)]] * 2, numbered=False, each_kernel=True)
        self.assertEqual(kernel_counters.per_call_us(named, 2, True, 2, 0, each_kernel=True), ([7.0, 7.0], ""))
        mixed = [("hone_mix", 9.0)] + named[:5] + [("hone_mix", 9.0)] + named[5:]
        self.assertEqual(kernel_counters.per_call_us(mixed, 2, True, 2, 1, each_kernel=True), ([7.0, 7.0], ""))
        swapped = [named[1], named[0]] + named[2:]  # a kernel where hone's flush stands
        times, why = kernel_counters.per_call_us(swapped, 2, True, 2, 0, each_kernel=True)
        self.assertIsNone(times)
        self.assertIn("do not stand where", why)
        # a later kernel may find cold what the earlier left in L2: half a flush each
        self.assertEqual(kernel_counters.cold_allowance_us(ranges, 2, 2, 0), 10.0)
        self.assertEqual(kernel_counters.cold_allowance_us(counted_ranges([[("a", 3.0)]] * 2, each_kernel=True),
                                                           2, 1, 0), 0.0)

    def test_the_flush_layout_is_each_kernel_only_where_the_prologue_ran_at_every_kernel(self):
        ok = {"flushed_each_kernel": True, "kernel_prologue": {"launches": 6, "failures": 0, "graphs": 0}}
        self.assertEqual(kernel_counters.flush_layout(ok, True, 3, 2), (True, ""))
        self.assertEqual(kernel_counters.flush_layout(ok, False, 3, 2), (False, ""))  # not asked
        fallback = {"flushed_each_kernel": False, "kernel_flush_error": "multiple_subscribers: another tool"}
        each, why = kernel_counters.flush_layout(fallback, True, 3, 2)
        self.assertFalse(each)
        self.assertIn("once per call", why)
        self.assertIn("multiple_subscribers", why)
        for summary in ({"launches": 5, "failures": 0, "graphs": 0},  # a launch it missed
                        {"launches": 6, "failures": 1, "graphs": 0},  # a flush that failed
                        {"launches": 6, "failures": 0, "graphs": 1},  # a graph's kernels, one flush
                        {"launches": 6, "failures": 0, "graphs": 0, "missed": 1}):  # a <<<>>> it could not precede
            each, why = kernel_counters.flush_layout(dict(ok, kernel_prologue=summary), True, 3, 2)
            self.assertIsNone(each, summary)
            self.assertIn("3 calls of 2 kernels make 6", why)
        each, why = kernel_counters.flush_layout({"flushed_each_kernel": True}, True, 3, 2)
        self.assertIsNone(each)
        self.assertIn("no count", why)

    def count(self, reply, records_us, events_us, kernels=1, method="cupti_kernel_records"):
        """TimedRun._count_kernels after a device pass of `records_us` (events `events_us`)."""
        run = timed_runs.TimedRun.__new__(timed_runs.TimedRun)
        notes = []
        run.session = stub_session(notes)
        run.slot_count, run.flush_bytes, run.extra = 1000, 1, {}
        run.sets = type("Sets", (), {"draw": lambda self: None, "mixed": (),
                                     "overwrite_one": lambda self, entries: entries})()
        run.progress = lambda text: None
        asked = []

        def op(mode, entries, warmup, settle, position, what, counters=0, overwrite=True, each_kernel=False):
            asked.append((mode, len(entries), counters, each_kernel))
            self.assertFalse(overwrite)  # no fill kernels among the numbered ranges
            return reply(len(entries), each_kernel), 1000.0

        run._op = op
        device = timed_runs.Pass("device", samples_us=list(records_us), method=method,
                                 events_us=list(events_us), kernels_per_call=kernels)
        run._count_kernels(device)
        return device, run.extra, notes, asked

    @staticmethod
    def counted(us, kernels=1, prologue=True, flush_us=20.0):
        """A runner's counted reply: flushed before each kernel where asked and `prologue` (the
        kernel prologue armed), else once per call (and saying why where each kernel was asked)."""
        def reply(n, each_kernel=False):
            each = each_kernel and prologue
            ranges = counted_ranges([[("k", us)] * kernels] * n, each_kernel=each, flush_us=flush_us)
            out = {"times_us": [90.0] * n, "counter_ranges": [{"name": name, "gpu_time_us": t} for name, t in ranges]}
            if each_kernel:
                out["flushed_each_kernel"] = each
                if each:
                    out["kernel_prologue"] = {"launches": n * kernels, "failures": 0, "first_failure": 0, "graphs": 0,
                                              "missed": 0}
                else:
                    out["kernel_flush_error"] = "hone_cupti_begin (kernel prologue): multiple_subscribers"
            return out
        return reply

    def test_counters_replace_the_records_and_the_records_are_kept_beside(self):
        device, extra, _, asked = self.count(self.counted(2.7), [1.5] * 30, [4.0] * 30)
        # exactly the ranges expected (a call's kernel, hone's flush before it and marker): the
        # profiler's start grows with its counter image; flushed before each kernel, as ncu;
        # COUNTER_CALLS samples of COUNTER_BATCH calls each (3 ranges a call fit the batch's budget)
        calls = timed_runs.COUNTER_CALLS * timed_runs.COUNTER_BATCH
        self.assertEqual(asked, [("call", calls, calls * 3, True)])
        self.assertEqual(device.method, "cupti_gpu_time_duration")
        self.assertEqual([round(x, 9) for x in device.samples_us], [2.7] * timed_runs.COUNTER_CALLS)
        self.assertEqual(device.calls_per_sample, timed_runs.COUNTER_BATCH)
        self.assertEqual(device.records_us, [1.5] * 30)
        self.assertAlmostEqual(extra["device_records"]["p50_us"], 1.5)
        self.assertEqual(extra["device_per_call"]["reps"], calls)
        self.assertEqual(extra["kernel_counters"]["flushed"], "each kernel")
        self.assertEqual(extra["kernel_counters"]["calls_per_sample"], timed_runs.COUNTER_BATCH)
        self.assertNotIn("kernel_counters_note", extra)
        _, _, _, asked = self.count(self.counted(0.02, 100), [1.5] * 30, [400.0] * 30, kernels=100)
        self.assertEqual(asked[0][1:], (5, 5 * 201, True))  # fewer calls fit the counter image (1024 // 201)
        device, extra, _, asked = self.count(self.counted(0.01, 200), [1.5] * 30, [400.0] * 30, kernels=200)
        # two calls of 200 kernels flushed before each (401 ranges) do not fit: once a call, five do
        self.assertEqual(asked[0][1:], (5, 5 * 202, False))
        self.assertEqual(device.method, "cupti_gpu_time_duration")
        self.assertEqual(extra["kernel_counters"]["flushed"], "each call")
        self.assertIn("once per call", extra["kernel_counters_note"])
        device, extra, _, asked = self.count(self.counted(2.7), [1.5] * 30, [4.0] * 30, kernels=400)
        self.assertEqual((asked, device.method), ([], "cupti_kernel_records"))  # not even three calls fit
        self.assertIn("do not fit", extra["kernel_counters_note"])

    def test_each_device_sample_averages_consecutive_counted_calls(self):
        # calls alternating 10 and 12 us: one by one they spread 18%; each sample, the mean of
        # COUNTER_BATCH (even) consecutive calls, is 11 us exactly, and the calls stay beside
        def alternating(n, each_kernel=False):
            out = self.counted(0.0)(n, each_kernel)
            ranges = counted_ranges([[("k", 10.0 if i % 2 == 0 else 12.0)] for i in range(n)], each_kernel=each_kernel)
            out["counter_ranges"] = [{"name": name, "gpu_time_us": t} for name, t in ranges]
            return out
        device, extra, _, _ = self.count(alternating, [9.0] * 30, [14.0] * 30)
        self.assertEqual(device.samples_us, [11.0] * timed_runs.COUNTER_CALLS)
        timing = device.timing(0, 0, 3).summary()
        self.assertEqual((timing["spread"], timing["calls_per_sample"]), (0.0, timed_runs.COUNTER_BATCH))
        self.assertGreater(extra["device_per_call"]["spread"], 0.15)
        # 12 samples of as many calls as 512 ranges and the slots hold (12 at most); calls of many
        # ranges, or outputs that fill the slots, are counted one call a sample (24 at most)
        self.assertEqual(timed_runs.counted_plan(3, 1000), (144, 12))  # 1 kernel flushed before it
        self.assertEqual(timed_runs.counted_plan(11, 1000), (36, 3))  # 5 kernels: 512 // 11 // 12
        self.assertEqual(timed_runs.counted_plan(5, 1000), (96, 8))  # 2 kernels: 512 // 5 // 12
        self.assertEqual(timed_runs.counted_plan(23, 1000), (24, 1))  # 11 kernels: 22 in 512 ranges, one a sample
        self.assertEqual(timed_runs.counted_plan(3, 20), (19, 1))  # 19 calls fit the slots: one a sample
        self.assertEqual(timed_runs.counted_plan(3, 80), (72, 6))
        self.assertEqual(timed_runs.batch_means([1.0, 3.0, 5.0, 7.0, 9.0], 2), [2.0, 6.0, 9.0])

    def test_counters_that_cannot_be_used_leave_the_records_with_a_note(self):
        unavailable = lambda n, each: {"times_us": [9.0] * n, "kernel_counters_error": "CUPTI_ERROR_NOT_SUPPORTED"}
        device, extra, notes, _ = self.count(unavailable, [1.5] * 30, [4.0] * 30)
        self.assertEqual((device.method, device.samples_us), ("cupti_kernel_records", [1.5] * 30))
        self.assertIn("NOT_SUPPORTED", extra["kernel_counters_note"])
        self.assertTrue(any("not kernel counters" in n for n in notes))
        device, extra, _, _ = self.count(self.counted(40.0), [1.5] * 30, [4.0] * 30)
        self.assertEqual(device.method, "cupti_kernel_records")
        self.assertIn("exceeds the events", extra["kernel_counters_note"])
        device, extra, _, asked = self.count(self.counted(2.7), [1.5] * 30, [4.0] * 30, kernels=None)
        self.assertEqual((asked, device.method), ([], "cupti_kernel_records"))
        self.assertIn("cannot be attributed", extra["kernel_counters_note"])

    def test_a_runner_that_could_not_flush_each_kernel_is_counted_once_per_call_and_says_so(self):
        device, extra, notes, _ = self.count(self.counted(2.7, prologue=False), [1.5] * 30, [4.0] * 30)
        self.assertEqual((device.method, round(device.samples_us[0], 9)), ("cupti_gpu_time_duration", 2.7))
        self.assertEqual(extra["kernel_counters"]["flushed"], "each call")
        self.assertIn("multiple_subscribers", extra["kernel_counters_note"])
        self.assertTrue(any("flushed once per call" in n for n in notes))

    def test_a_prologue_that_missed_a_launch_is_counted_again_with_one_flush_a_call(self):
        def reply(n, each_kernel=False):
            out = self.counted(2.7)(n, each_kernel)
            if each_kernel:  # a <<<>>> launch whose driver launch CUPTI did not report
                out["kernel_prologue"] = dict(out["kernel_prologue"], launches=n - 1, missed=1)
            return out
        device, extra, notes, asked = self.count(reply, [1.5] * 30, [4.0] * 30)
        self.assertEqual([a[3] for a in asked], [True, False])
        self.assertEqual((device.method, round(device.samples_us[0], 9)), ("cupti_gpu_time_duration", 2.7))
        self.assertEqual(extra["kernel_counters"]["flushed"], "each call")
        self.assertIn("1 more launches it could not precede", extra["kernel_counters_note"])
        self.assertTrue(any("flushed once per call" in n for n in notes))

    def test_kernels_flushed_each_may_exceed_the_held_calls_by_their_cold_caches_and_no_more(self):
        # two kernels of 7 us whose held calls (sharing the cache) took 8.5 us: 14 us counted is
        # within 1.05 x 8.5 + 2 x 1.5 + half a 20 us flush
        device, extra, _, _ = self.count(self.counted(7.0, 2), [8.0] * 30, [8.5] * 30, kernels=2)
        self.assertEqual(device.method, "cupti_gpu_time_duration")
        device, extra, _, _ = self.count(self.counted(7.0, 2, flush_us=2.0), [8.0] * 30, [8.5] * 30, kernels=2)
        self.assertEqual(device.method, "cupti_kernel_records")  # a 2 us flush allows 1 us: 14 > 8.9 + 3 + 1
        self.assertIn("for cold caches", extra["kernel_counters_note"])

    def test_counters_far_below_the_records_are_rejected(self):
        with self.assertRaises(faults.CandidateFailure) as raised:
            self.count(self.counted(0.2), [5.0] * 30, [6.0] * 30)
        self.assertEqual(raised.exception.status, "rejected")
        self.assertIn("kernel counters put", raised.exception.reason)

    def test_counters_are_the_default_and_records_opt_out(self):
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop(timed_runs.DEVICE_TIME_VARIABLE, None)
            self.assertTrue(timed_runs.counters_asked())
            os.environ[timed_runs.DEVICE_TIME_VARIABLE] = "counters"
            self.assertTrue(timed_runs.counters_asked())
            self.assertTrue(timed_runs.flush_each_kernel())
            os.environ[timed_runs.DEVICE_TIME_VARIABLE] = "counters-call"
            self.assertTrue(timed_runs.counters_asked())
            self.assertFalse(timed_runs.flush_each_kernel())
            os.environ[timed_runs.DEVICE_TIME_VARIABLE] = "records"
            self.assertFalse(timed_runs.counters_asked())


class RunnerCountersPrologueTest(unittest.TestCase):
    """The python runner's counted op asks libhone_cupti for the kernel prologue (a flush before
    each kernel) and, where it is refused, counts with each call flushed once and says why."""

    def run_counters(self, refuse_prologue: bool, has_prologue: bool = True):
        from hone_worker.runner import cupti, timed_calls
        from hone_worker.runner.harness import FlushArgs

        begun, armed = [], []

        def begin(request):
            begun.append(request)
            if refuse_prologue and request.get("kernel_prologue"):
                return {"ok": False, "error": {"code": "multiple_subscribers", "message": "another tool subscribed"}}
            return {"ok": True}

        ended = {"ok": True, "metrics": {"ranges": [{"name": "0", "values": {cupti.GPU_TIME: 2000.0}}]}}
        if not refuse_prologue and has_prologue:
            ended["kernel_prologue"] = {"launches": 1, "failures": 0, "first_failure": 0, "graphs": 0}
        device = type("Device", (), {"synchronize": lambda self: None})()
        with mock.patch.object(cupti, "unavailable", return_value=""), \
                mock.patch.object(cupti, "has_kernel_prologue", return_value=has_prologue), \
                mock.patch.object(cupti, "begin", side_effect=begin), \
                mock.patch.object(cupti, "kernel_prologue", side_effect=lambda f, u: armed.append(f) or {"ok": True}), \
                mock.patch.object(cupti, "end", return_value=ended):
            counters = timed_calls._Counters(64, (1234, FlushArgs(0, 0, 0)))
            counters.start()
            if counters.each_kernel:
                counters.arm(True)
                counters.arm(False)
            return counters, counters.stop(device), begun, armed

    def test_the_prologue_is_asked_for_and_armed_around_the_call(self):
        counters, reply, begun, armed = self.run_counters(refuse_prologue=False)
        self.assertTrue(counters.each_kernel)
        self.assertEqual([r.get("kernel_prologue", False) for r in begun], [True])
        self.assertEqual(armed, [1234, None])
        self.assertTrue(reply["flushed_each_kernel"])
        self.assertEqual(reply["kernel_prologue"]["launches"], 1)
        self.assertEqual(reply["counter_ranges"], [{"name": "0", "gpu_time_us": 2.0}])

    def test_a_refused_prologue_leaves_each_call_flushed_once_and_says_why(self):
        counters, reply, begun, armed = self.run_counters(refuse_prologue=True)
        self.assertFalse(counters.each_kernel)
        self.assertEqual([r.get("kernel_prologue", False) for r in begun], [True, False])
        self.assertEqual(armed, [])
        self.assertFalse(reply["flushed_each_kernel"])
        self.assertIn("multiple_subscribers", reply["kernel_flush_error"])
        self.assertIn("counter_ranges", reply)
        _, reply, begun, _ = self.run_counters(refuse_prologue=False, has_prologue=False)
        self.assertEqual([r.get("kernel_prologue", False) for r in begun], [False])
        self.assertIn("no hone_cupti_kernel_prologue", reply["kernel_flush_error"])


class ProfileChildModelNewTest(unittest.TestCase):
    """The profiling child (confined, allowed to hold candidate code) builds a KernelBench answer's
    ModelNew as the candidate processes do: seeded like Model, so both own the same weights."""

    KB = REPO / "tests" / "kernelbench"

    def test_modelnew_gets_models_weights_and_computes_what_model_does(self):
        from hone_worker import profile
        from hone_worker.instance import build_instance, run_reference
        from hone_worker.kernel_spec import KernelSpec
        from hone_worker.modelnew import MODEL_SEED

        device = parse_device("cpu")
        instance = build_instance(load_task(str(self.KB / "linear_relu.py")), device, 7, MODEL_SEED)
        spec = KernelSpec(str(self.KB / "answers" / "linear_relu_torch.py"), "modelnew", None, [], None, {})
        call = profile._modelnew_call(spec, str(self.KB / "linear_relu.py"), device, instance.inputs)
        with torch.no_grad():
            got = call()
        torch.testing.assert_close(got, run_reference(instance)[0])

    def test_a_file_without_modelnew_is_a_kernel_error(self):
        from hone_worker import profile
        from hone_worker.errors import KernelError
        from hone_worker.kernel_spec import KernelSpec

        with tempfile.TemporaryDirectory() as folder:
            answer = os.path.join(folder, "answer.py")
            with open(answer, "w") as f:
                f.write("import torch\n")
            spec = KernelSpec(answer, "modelnew", None, [], None, {})
            with self.assertRaises(KernelError) as raised:
                profile._modelnew_call(spec, str(self.KB / "linear_relu.py"), parse_device("cpu"), [torch.zeros(8, 16)])
            self.assertIn("ModelNew", raised.exception.message)


class SetsFittingTest(unittest.TestCase):
    GiB = 1 << 30

    def test_small_tasks_keep_three_sets(self):
        self.assertEqual(sets_fitting(70 * self.GiB, 4 << 20, 4 << 20), 3)

    def test_a_kernelbench_sized_task_keeps_two_on_an_h100(self):
        # 19_ReLU of KernelBench level 1: 6 GiB in and out; the H100's judge held 61 GiB with three
        # sets and the runner ran out of memory. Two sets, never fewer, however short the device.
        self.assertEqual(sets_fitting(66 * self.GiB, 6 * self.GiB, 6 * self.GiB), 2)
        self.assertEqual(sets_fitting(1 * self.GiB, 6 * self.GiB, 6 * self.GiB), 2)

    def test_the_outputs_count_too(self):
        # 47_Sum: 8 GiB in, 2 MiB out, fits three sets on an H200; the same input with an output as large does not.
        self.assertEqual(sets_fitting(130 * self.GiB, 8 * self.GiB, 2 << 20), 3)
        self.assertEqual(sets_fitting(130 * self.GiB, 8 * self.GiB, 8 * self.GiB), 2)


class InputSetsTest(unittest.TestCase):
    def test_every_timed_input_is_new_in_every_row_and_can_be_rebuilt(self):
        task = load_task(str(TASKS / "relu.py"))
        target = torch.zeros(64, 4096)
        sets = InputSets(task, Device("cpu"), [target], pool_size=3, seed=5)
        self.assertEqual(len(sets.sets), 3)
        entries = [sets.draw() for _ in range(8)]
        for a, b in zip(entries, entries[1:]):
            self.assertNotEqual(a.set, b.set)  # never the same set twice in a row
            self.assertNotEqual(a.seed, b.seed)
        entry = entries[-1]
        self.assertEqual((entry.mixed, entry.rows), ((0,), ()))  # "elements": the contiguous input mixed anew
        self.assertEqual(entry.to_json(4), {"set": entry.set, "slot": 4, "rows": [],
                                            "mix": {"seed": entry.seed, "args": [0]}})
        rebuilt = sets.rebuild(entry)[0]
        stacked = torch.stack([s[0] for s in sets.sets])
        from_set = (stacked == rebuilt.unsqueeze(0)).float().argmax(0)
        self.assertTrue(torch.equal(stacked.gather(0, from_set.unsqueeze(0))[0], rebuilt))  # each element from a set
        for k in range(3):  # every set gives about a third of the elements ...
            self.assertAlmostEqual(float((from_set == k).float().mean()), 1 / 3, delta=0.02)
            # ... and no row of the input is a row of any set: no cache keyed by rows can hit
            self.assertFalse(bool((rebuilt == sets.sets[k][0]).all(dim=1).any()))
        self.assertTrue(torch.equal(sets.rebuild(entry)[0], rebuilt))  # rebuilt exactly, every time
        self.assertFalse(torch.equal(sets.rebuild(entries[-2])[0], rebuilt))

    def test_mix_mode_takes_two_rows_from_other_sets_and_non_contiguous_inputs_vary_so(self):
        task = load_task(str(TASKS / "relu.py"))
        task.timing_variation = "mix"
        sets = InputSets(task, Device("cpu"), [torch.zeros(64, 4096)], pool_size=3, seed=5)
        entry = sets.draw()
        self.assertEqual((len(entry.rows), entry.mixed), (2, ()))
        rebuilt = sets.rebuild(entry)[0]
        arg, row, donor = entry.rows[0]
        self.assertTrue(torch.equal(rebuilt[row], sets.sets[donor][0][row]))
        self.assertFalse(any(torch.equal(rebuilt, s[0]) for s in sets.sets))
        task.timing_variation = "elements"
        transposed = InputSets(task, Device("cpu"), [torch.zeros(4096, 64).t()], pool_size=3, seed=5)
        entry = transposed.draw()
        self.assertEqual((len(entry.rows), entry.mixed), (2, ()))  # not contiguous: rows, not hone_mix

    def test_inputs_whose_invariants_a_mix_would_break_vary_by_whole_sets_or_rows(self):
        task = load_task(str(FIXTURES / "invariant_inputs.py"))
        inputs = task.module.get_inputs()
        sets = InputSets(task, Device("cpu"), inputs, pool_size=3, seed=5)
        self.assertEqual((sets.whole_only, sets.keep_rows, sets.mixed), ((0, 3), (1,), (2,)))
        for _ in range(6):
            entry = sets.draw()
            self.assertTrue(all(arg == 1 for arg, _, _ in entry.rows))  # the sorted rows swap whole rows
            symmetric, boundaries, free, edges = sets.rebuild(entry)
            self.assertTrue(torch.equal(symmetric, symmetric.t()))
            self.assertTrue(bool((boundaries[..., 1:] >= boundaries[..., :-1]).all()))
            self.assertTrue(bool((edges[1:] >= edges[:-1]).all()))
            self.assertFalse(any(torch.equal(free, s[2]) for s in sets.sets))

    def test_one_entry_of_an_op_overwrites_its_arguments(self):
        task = load_task(str(TASKS / "relu.py"))
        sets = InputSets(task, Device("cpu"), [torch.zeros(64, 4096)], pool_size=3, seed=5)
        entries = sets.overwrite_one([sets.draw() for _ in range(6)])
        self.assertEqual(sum(e.overwrite for e in entries), 1)
        marked = next(e for e in entries if e.overwrite)
        self.assertTrue(marked.to_json(1)["overwrite_arguments"])
        self.assertNotIn("overwrite_arguments", next(e for e in entries if not e.overwrite).to_json(1))

    def test_pool_mode_uses_whole_sets(self):
        task = load_task(str(TASKS / "relu.py"))
        task.timing_variation = "pool"
        sets = InputSets(task, Device("cpu"), [torch.zeros(64, 4096)], pool_size=2, seed=5)
        entry = sets.draw()
        self.assertEqual(entry.rows, ())
        self.assertTrue(torch.equal(sets.rebuild(entry)[0], sets.sets[entry.set][0]))


class SlotCheckerTest(unittest.TestCase):
    def setUp(self):
        task = load_task(str(TASKS / "relu.py"))
        self.sets = InputSets(task, Device("cpu"), [torch.zeros(64, 4096)], pool_size=3, seed=1)
        self.entries = [self.sets.draw() for _ in range(6)]
        self.right = [[torch.relu(self.sets.rebuild(e)[0])] for e in self.entries]

    def checker(self, budget_ms=1000.0):
        return SlotChecker(lambda inputs: [torch.relu(inputs[0])], [TOL], raw=True, budget_ms=budget_ms, spot_checks=2)

    def test_every_call_is_recomputed_within_the_budget(self):
        checker = self.checker()
        checker.check(self.sets, self.entries, self.right, 0, 6)
        self.assertEqual((checker.verified, checker.scanned), (6, 6))

    def test_a_wrong_timed_call_and_an_unwritten_slot(self):
        wrong = list(self.right)
        wrong[3] = [torch.relu(self.sets.rebuild(self.entries[2])[0])]  # another call's answer
        with self.assertRaises(faults.CandidateFailure) as caught:
            self.checker().check(self.sets, self.entries, wrong, 10, 100)
        self.assertIn("timed call 14 of 100 returned a wrong result", caught.exception.reason)
        self.assertEqual(caught.exception.check, "timed_calls_verified")
        unwritten = [[o.clone() for o in outputs] for outputs in self.right]
        poison.poison_outputs(unwritten[5])
        with self.assertRaises(faults.CandidateFailure) as caught:
            self.checker(budget_ms=0.0).check(self.sets, self.entries, unwritten, 0, 6)
        self.assertIn("timed call 6 of 6 left out[0,0] unwritten", caught.exception.reason)

    def test_stacked_outputs_are_scanned_at_once_and_still_name_the_unwritten_call(self):
        unwritten = [[o.clone() for o in outputs] for outputs in self.right]
        poison.poison_outputs(unwritten[4])
        blocks = [torch.stack([outputs[0] for outputs in unwritten])]
        copies = [[blocks[0][j]] for j in range(len(unwritten))]
        with self.assertRaises(faults.CandidateFailure) as caught:
            self.checker(budget_ms=0.0).check(self.sets, self.entries, copies, 0, 6, blocks)
        self.assertIn("timed call 5 of 6 left out[0,0] unwritten", caught.exception.reason)
        blocks = [torch.stack([outputs[0] for outputs in self.right])]
        checker = self.checker()
        checker.check(self.sets, self.entries, [[blocks[0][j]] for j in range(6)], 0, 6, blocks)
        self.assertEqual((checker.verified, checker.scanned), (6, 6))

    def test_past_the_budget_a_sample_and_the_last_call(self):
        checker = self.checker(budget_ms=0.0)
        checker.check(self.sets, self.entries, self.right, 0, 6)
        self.assertEqual(checker.verified, 3)  # spot_checks + the last
        self.assertEqual(checker.scanned, 6)  # every slot is still scanned for poison


class AfterReleaseNoteTest(unittest.TestCase):
    def test_the_device_windows_split_is_logged_from_the_reply(self):
        message = {"after_release_s": {"synchronize": 0.0125, "records": 0.0031},
                   "activities": [{"name": "hone_hold", "start_us": 0.0, "end_us": 900.0},
                                  {"name": "hone_flush", "start_us": 1000.0, "end_us": 1040.0},
                                  {"name": "relu_kernel", "start_us": 1041.0, "end_us": 1050.5}]}
        note = timed_runs._after_release(Reply(message, 0, 9_000_000), 5_000_000)
        self.assertIn("records' GPU span 50 us", note)  # the hold is not the calls' work
        self.assertIn("synchronize 12500 us, records 3100 us", note)
        self.assertIn("the reply came 4000 us after `finished`", note)
        self.assertEqual(timed_runs._after_release(Reply({"times_us": [1.0]}, 0, 1), 0), "")  # the python runner's


class _Word:
    """A release word's region: what _DeviceWindow touches of it."""

    def __init__(self) -> None:
        self.views = [torch.full((1,), 7, dtype=torch.int32)]


class DeviceWindowTest(unittest.TestCase):
    """The judge's clock around a device-time op: from its release to the runner's `finished`."""

    def test_release_on_enqueued_and_the_window_ends_at_finished(self):
        word = _Word()
        window = timed_runs._DeviceWindow(word)
        self.assertEqual(int(word.views[0]), 0)  # cleared before the op is sent
        now = time.perf_counter_ns()
        self.assertFalse(window.on_event({"event": "finished"}, now))  # before the release: not the calls' end
        self.assertFalse(window.on_event({"event": "enqueued"}, now))
        self.assertEqual(int(word.views[0]), 1)
        sent = window.released[0] + 5_000_000
        self.assertTrue(window.on_event({"event": "finished"}, sent))
        self.assertFalse(window.on_event({"event": "finished"}, sent + 1))  # only the first counts
        # The window ends when the runner sent `finished` (the kernel's stamp), not when the judge read it.
        self.assertEqual(window.span(), (window.released[0], sent))

    def test_a_finished_stamped_before_the_release_ends_the_window_at_the_release(self):
        window = timed_runs._DeviceWindow(_Word())
        window.on_event({"event": "enqueued"}, 0)
        window.on_event({"event": "finished"}, window.released[0] - 1_000)
        start, end = window.span()
        self.assertEqual(start, end)

    def test_a_reply_without_finished_or_enqueued_is_rejected(self):
        window = timed_runs._DeviceWindow(_Word())
        with self.assertRaises(faults.CandidateFailure) as caught:
            window.span()
        self.assertIn("no `enqueued` event", caught.exception.reason)
        window.on_event({"event": "enqueued"}, time.perf_counter_ns())
        with self.assertRaises(faults.CandidateFailure) as caught:
            window.span()
        self.assertEqual((caught.exception.status, caught.exception.check), ("rejected", "timing_bounded"))
        self.assertIn("no `finished` event", caught.exception.reason)


class MessageStampTest(unittest.TestCase):
    """A candidate's message arrives, on the judge's clock, when the kernel stamped its send."""

    def _pair(self):
        import socket
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setsockopt(socket.SOL_SOCKET, candidate_process.SO_TIMESTAMPNS, 1)
        self.addCleanup(ours.close)
        self.addCleanup(theirs.close)
        return ours, theirs

    def test_a_message_read_late_arrived_when_it_was_sent(self):
        import socket
        ours, theirs = self._pair()
        before = time.perf_counter_ns()
        theirs.send(b"{}")
        time.sleep(0.2)  # the judge busy elsewhere, or waiting for a CPU
        _, ancillary, _, _ = ours.recvmsg(64, socket.CMSG_SPACE(16))
        read = time.perf_counter_ns()
        arrived, lag = candidate_process._sent_at(ancillary)
        self.assertGreaterEqual(lag, 190_000_000)
        self.assertLess(arrived - before, 50_000_000)  # sent right away: the sleep is not the candidate's
        self.assertLessEqual(arrived, read)

    def test_without_a_stamp_a_message_arrived_when_it_was_read(self):
        before = time.perf_counter_ns()
        arrived, lag = candidate_process._sent_at([])
        self.assertEqual(lag, 0)
        self.assertGreaterEqual(arrived, before)

    def test_descriptors_a_candidate_passes_are_closed(self):
        import socket
        ours, theirs = self._pair()
        with open(__file__) as passed:
            socket.send_fds(theirs, [b"{}"], [passed.fileno()])
        _, ancillary, _, _ = ours.recvmsg(64, socket.CMSG_SPACE(4) + socket.CMSG_SPACE(16))
        received = [fd for level, kind, data in ancillary if kind == socket.SCM_RIGHTS
                    for fd in memoryview(data).cast("i")]
        self.assertEqual(len(received), 1)
        os.fstat(received[0])  # open in this process now
        candidate_process._close_passed_descriptors(ancillary)
        with self.assertRaises(OSError):
            os.fstat(received[0])


class _Readings:
    """A candidate process whose main thread's schedstat (CPU time, run delay) and whole CPU time
    read from two lists in turn."""

    def __init__(self, schedstats, cpu) -> None:
        self.schedstats, self.cpu = list(schedstats), list(cpu)

    def settle(self):
        return True

    def schedstat(self):
        return self.schedstats.pop(0)

    def cpu_time_ns(self):
        return self.cpu.pop(0)


class OpAccountingTest(unittest.TestCase):
    """What of the judge's clock the candidate spent waiting for a CPU held by other work, and the
    CPU time its threads other than the loop's used."""

    def _waited(self, main_ms, delay_ms, cpu_ms, window_ms):
        ms = 1_000_000
        process = _Readings([(3 * ms, 5 * ms), (3 * ms + main_ms * ms, 5 * ms + delay_ms * ms)],
                            [7 * ms, 7 * ms + cpu_ms * ms])
        waited = process_accounting.OpAccounting(process)
        return waited.waited_us(window_ms * 1000.0) / 1000.0, waited.cpu_us / 1000.0, waited.others_us / 1000.0

    def test_a_wait_while_its_processes_did_not_run_is_subtracted(self):
        self.assertEqual(self._waited(10, 40, 10, 50), (40.0, 10.0, 0.0))  # one thread, preempted by other work

    def test_a_wait_while_its_own_threads_held_the_cpus_is_its_time(self):
        # Workers kept the calling thread waiting: 95 ms of CPU in a 50 ms window, nothing subtracted,
        # and 93 ms of it beside the loop's thread.
        self.assertEqual(self._waited(2, 45, 95, 50), (0.0, 95.0, 93.0))

    def test_no_more_than_the_window_leaves_beside_its_cpu_time(self):
        self.assertEqual(self._waited(30, 30, 30, 50), (20.0, 30.0, 0.0))

    def test_unreadable_counters_subtract_nothing(self):
        waited = process_accounting.OpAccounting(_Readings([None, None], [None, None]))
        self.assertEqual(waited.waited_us(50_000.0), 0.0)
        self.assertIsNone(waited.others_us)


class ProcessCpuTimeTest(unittest.TestCase):
    """The judge reads a candidate process's CPU time from the kernel, not from the candidate."""

    def test_a_spinning_child_s_cpu_clock_counts_its_spin_and_is_gone_with_it(self):
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "import sys, time\n"
                                  "while time.process_time() < 0.4: pass\nprint('spun', flush=True)\ntime.sleep(5)"],
                                 stdout=subprocess.PIPE)
        self.addCleanup(child.kill)
        self.assertEqual(child.stdout.readline().strip(), b"spun")
        time.sleep(0.2)
        used = time.clock_gettime_ns(process_accounting.process_cpu_clock(child.pid))
        self.assertGreaterEqual(used, 400_000_000)
        self.assertLess(used, 700_000_000)  # the sleep is no CPU time
        self.assertEqual(process_accounting.reaped_cpu_ns(child.pid), 0)
        child.kill()
        child.wait()
        with self.assertRaises(OSError):
            time.clock_gettime_ns(process_accounting.process_cpu_clock(child.pid))

    def test_reaped_children_count_for_their_parent(self):
        import subprocess
        parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                                   "subprocess.run([sys.executable, '-c', 'import time\\n"
                                   "while time.process_time() < 0.4: pass'])\nprint('reaped', flush=True)\ntime.sleep(5)"],
                                  stdout=subprocess.PIPE)
        self.addCleanup(parent.kill)
        self.assertEqual(parent.stdout.readline().strip(), b"reaped")
        self.assertGreaterEqual(process_accounting.reaped_cpu_ns(parent.pid), 390_000_000)  # in clock ticks
        self.assertGreaterEqual(process_accounting.tree_cpu_ns(parent.pid), 390_000_000)  # the tree's, reaped included


class LaunchSpecTest(unittest.TestCase):
    def test_specs_from_the_launch_file(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "launch.json")
            with open(path, "w") as f:
                json.dump({"native": [{"argv": ["/bin/confine", "hone-runner"], "env": {"PATH": "/usr/bin"},
                                       "cwd": folder, "scratch": folder, "exit_code_carries_signal": True}],
                           "python": []}, f)
            specs = launch.load_launch_specs({"HONE_CANDIDATE_LAUNCH": path})
            spec = specs["native"][0]
            self.assertEqual(spec.command("cuda:1"), ["/bin/confine", "hone-runner", "--device", "cuda:1"])
            self.assertTrue(spec.exit_code_carries_signal)
            self.assertEqual(specs["python"], [])
            with open(path, "w") as f:
                json.dump({"native": [{"argv": [], "scratch": folder}]}, f)
            with self.assertRaises(WorkerError):
                launch.load_launch_specs({"HONE_CANDIDATE_LAUNCH": path})

    def test_unwrapped_without_the_variable(self):
        specs = launch.load_launch_specs({"PATH": "/usr/bin", "HONE_RUNNER": "/no/such/hone-runner"})
        self.assertEqual(specs["native"], [])  # a runner that is not there is not offered
        self.assertEqual(specs["python"][0].argv, [sys.executable, "-m", "hone_worker.runner"])
        self.assertNotEqual(specs["python"][0].scratch, specs["python"][1].scratch)
        # A CPU candidate's address space is the RAM, as the engine's specs set it: a machine that
        # overcommits without bound (the GPU machine) otherwise lets a 1 TiB allocation succeed.
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        self.assertEqual([s.address_space_bytes for s in specs["python"]], [ram] * len(specs["python"]))

    def test_the_profiling_child_starts_from_a_python_runner_spec(self):
        from hone_worker.profile_launch import child_argv
        spec = launch.LaunchSpec("python", ["confine", "--", "/usr/bin/python3", "-m", "hone_worker.runner"], None,
                                 "/s", "/s")
        self.assertEqual(child_argv(spec, ["req.json", "out.json"], []),
                         ["confine", "--", "/usr/bin/python3", "-m", "hone_worker.profile", "req.json", "out.json"])
        self.assertEqual(child_argv(spec, ["r", "o", "--ncu"], ["ncu", "--csv"])[:4], ["confine", "--", "ncu", "--csv"])
        with self.assertRaises(WorkerError):
            child_argv(launch.LaunchSpec("python", ["hone-runner"], None, "/s", "/s"), [], [])

    def test_clearing_a_scratch_folder_keeps_the_folder(self):
        with tempfile.TemporaryDirectory() as folder:
            os.makedirs(os.path.join(folder, "hone_worker", "deep"))
            open(os.path.join(folder, "hone_worker", "__init__.py"), "w").close()
            open(os.path.join(folder, "kernel.so"), "w").close()
            launch.clear_folder(folder)
            self.assertEqual(os.listdir(folder), [])
            self.assertTrue(os.path.isdir(folder))


class PoolQuietTest(unittest.TestCase):
    """While the judge times calls (quiet()) its pool begins no runner's start, except one a take()
    waits for; quiet() first waits for a start under way. Real hone-runner processes on the CPU,
    each start slowed by a second (sh sleeps, then execs the runner) so that one can be caught."""

    def setUp(self):
        runner = launch.native_runner_path(os.environ)
        if not runner:
            self.skipTest("hone-runner is not built ($HONE_RUNNER)")
        scratch = tempfile.TemporaryDirectory(prefix="hone-pool-test-")
        self.addCleanup(scratch.cleanup)
        folder = scratch.name
        argv = ["/bin/sh", "-c", 'sleep 1; exec "$0" "$@"', runner]
        specs = {"native": [launch.LaunchSpec("native", argv, None, folder, os.path.join(folder, f"n{k}"))
                            for k in range(2)], "python": []}
        self.pool = candidate_pool.CandidatePool(specs)
        self.addCleanup(self.pool.close)

    def states(self):
        with self.pool.changed:
            return [s.state for s in self.pool._slots["native"]]

    def filled(self) -> None:
        """Both native slots started and ready."""
        self.pool.prepare("native", "cpu")
        self.wait_for(lambda s: s == ["ready", "ready"], "the pool filled")

    def wait_for(self, predicate, what: str, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s  # polled: a slot does not notify each change of state
        while not predicate(self.states()):
            if time.monotonic() > deadline:
                self.fail(f"{what}: slots stayed {self.states()}")
            time.sleep(0.01)

    def test_quiet_waits_for_a_start_under_way_and_begins_none(self):
        self.pool.prepare("native", "cpu")
        self.wait_for(lambda s: "starting" in s, "a start began")
        said = []
        with self.pool.quiet(said.append):
            # the first start finished, the second did not begin
            self.assertEqual(sorted(self.states()), ["idle", "ready"])
            self.assertEqual(said, ["waiting for a runner's start to finish before timing"])
            time.sleep(1.5)
            self.assertEqual(sorted(self.states()), ["idle", "ready"])
        self.wait_for(lambda s: s == ["ready", "ready"], "the pool filled after the quiet block")

    def test_a_released_runner_is_restarted_only_after_the_quiet_block(self):
        self.filled()
        taken = self.pool.take("native", "cpu")
        with self.pool.quiet():
            self.pool.release(taken)
            self.wait_for(lambda s: "taken" not in s, "the released runner ended")
            time.sleep(1.5)
            self.assertEqual(sorted(self.states()), ["idle", "ready"])
        self.wait_for(lambda s: s == ["ready", "ready"], "the released slot restarted")

    def test_a_take_inside_the_quiet_block_starts_what_it_waits_for(self):
        self.filled()
        first, second = self.pool.take("native", "cpu"), self.pool.take("native", "cpu")
        with self.pool.quiet():
            self.pool.release(first)
            self.pool.release(second)
            self.wait_for(lambda s: s == ["idle", "idle"], "both released runners ended")
            started = time.monotonic()
            third = self.pool.take("native", "cpu", timeout_s=60)  # not a deadlock: the take lifts the hush
            self.assertGreaterEqual(time.monotonic() - started, 0.9)  # it waited for a (slowed) start
            self.pool.release(third)


class FaultsTest(unittest.TestCase):
    """Messages as torch raises them on the GPU (the context probe runs on the CPU device here)."""

    def test_asynchronous_cuda_error(self):
        error = RuntimeError("CUDA error: an illegal memory access was encountered\nSearch for `cudaErrorIllegalAddress' "
                             "in https://docs.nvidia.com/cuda/ for more information.")
        failure = faults.call_failure(error, Device("cpu"), "forward")
        self.assertEqual(failure.status, "runtime_error")
        self.assertEqual(failure.reason, "CUDA error in forward: CUDA error: an illegal memory access was encountered")
        self.assertEqual(failure.evidence["cuda_error"], "cudaErrorIllegalAddress")
        self.assertIn("RuntimeError: CUDA error", failure.evidence["traceback"])

    def test_launch_errors(self):
        error = RuntimeError("hone: CUDA launch error: cudaErrorInvalidConfiguration: invalid configuration argument")
        failure = faults.call_failure(error, Device("cpu"), "forward")
        self.assertEqual((failure.check, failure.evidence["cuda_error"]), ("launch_errors", "cudaErrorInvalidConfiguration"))
        failure = faults.launch_failure(2, "cudaErrorInvalidConfiguration: invalid configuration argument", Device("cpu"),
                                        "forward")
        self.assertEqual(failure.reason, "CUDA launch error in forward: cudaErrorInvalidConfiguration: invalid "
                                         "configuration argument")
        self.assertFalse(failure.restart_required)

    def test_out_of_memory(self):
        error = RuntimeError("CUDA out of memory. Tried to allocate 80.00 GiB")
        self.assertTrue(faults.call_failure(error, Device("cpu"), "forward").reason.startswith("out of memory in forward"))
        self.assertIn("out of memory", faults.launch_failure(1, "std::bad_alloc", Device("cpu"), "forward").reason)


class SignatureTest(unittest.TestCase):
    def sig(self):
        return signature.Signature(
            inputs=[signature.ArgSpec("x", "tensor", "float32", [4]), signature.ArgSpec("n", "int")],
            params=[signature.ArgSpec("weight", "tensor", "float16", [4])],
            outputs=[signature.ArgSpec("out", "tensor", "float32", [4])])

    def test_raw_mismatches(self):
        sig = self.sig()
        self.assertIsNone(signature.raw_mismatch(sig, "in:float32,scalar:int,in:float16,out:float32,stream", "cuda"))
        self.assertIsNone(signature.raw_mismatch(sig, "stream,in:float32,scalar:int,in:float16,out:float32", "cuda"))
        self.assertTrue(signature.raw_mismatch(sig, "in:float32,scalar:int,in:float32,out:float32", "cuda").startswith(
            "argument 3 (weight): kernel takes float32, task gives float16"))
        self.assertIn("kernel takes float scalar, task gives int scalar",
                      signature.raw_mismatch(sig, "in:float32,scalar:float,in:float16,out:float32", "cpp"))
        self.assertIn("kernel takes a float32 tensor, task gives int scalar",
                      signature.raw_mismatch(sig, "in:float32,in:float32,in:float16,out:float32", "cpp"))
        self.assertIn("output 1 (out): kernel writes float16, the reference returns float32",
                      signature.raw_mismatch(sig, "in:float32,scalar:int,in:float16,out:float16", "cpp"))
        self.assertIn("hone::In<__half> weight", signature.raw_mismatch(sig, "in:float32", "cuda"))

    def test_torch_mismatches(self):
        sig = self.sig()
        self.assertIsNone(signature.torch_mismatch(sig, ["Tensor", "int", "Tensor"], 1))
        self.assertIsNone(signature.torch_mismatch(sig, ["Tensor", "int", "Tensor"], None))
        self.assertIn("argument 2 (n): kernel takes a tensor, task gives int scalar",
                      signature.torch_mismatch(sig, ["Tensor", "Tensor", "Tensor"], 1))
        self.assertIn("forward returns 2 tensors, the reference returns 1",
                      signature.torch_mismatch(sig, ["Tensor", "int", "Tensor"], 2))


if __name__ == "__main__":
    unittest.main()
