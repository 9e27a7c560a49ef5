"""The python runner's `time` and `records` ops over a real socketpair on the CPU: every scheduled
call sees its own input set and mixed rows and writes its own slot, its time is its own, warm-up
and settling are reported; then the CUDA variants (VMM arenas, events, the held stream released
by the judge, records with hone's spin and marker kernels), skipped without a GPU."""
import time
import unittest

import torch

from common import ADVERSARIAL, REPO, TASKS
from harness_path import harness_library
from kernel_build import build
from runner_cases import RUNNER_FIXTURES, RunnerTestCase, share
from runner_client import RunnerClient

from hone_worker.arena import tensor_arg
from hone_worker.runner.harness import Harness

SLEEP_US = (0.0, 2000.0, 4000.0)  # identity.cpp busy-waits x[0][0] us


def input_sets():
    """Three (4, 8) sets telling each other apart; set k's [0][0] is its sleep."""
    sets = []
    for k, sleep in enumerate(SLEEP_US):
        t = 100.0 * (k + 1) + torch.arange(32, dtype=torch.float32).view(4, 8)
        t[0, 0] = sleep
        sets.append(t)
    return sets


class HarnessTestCase(RunnerTestCase):
    def setUp(self) -> None:
        self.runner = RunnerClient(env={"HONE_HARNESS_LIBRARY": harness_library()})


class TimeCallModeTest(HarnessTestCase):
    SCHEDULE = [{"set": 1, "slot": 0}, {"set": 0, "slot": 1, "rows": [[0, 2, 2]]}, {"set": 2, "slot": 2},
                {"set": 0, "slot": 3, "rows": [[0, 0, 1], [0, 3, 2]]}]

    def expected(self, sets, entry) -> torch.Tensor:
        t = sets[entry["set"]].clone()
        for _, row, donor in entry.get("rows", []):
            t[row] = sets[donor][row]
        return t

    def run_schedule(self, source, schedule=None, **extra) -> tuple:
        schedule = schedule or self.SCHEDULE
        self.load(source)
        sets = input_sets()
        specs = [(torch.float32, [4, 8])] + sets + [(torch.float32, [4, 8])] * len(schedule)
        bufs, views = share(self.runner, 1, *specs)
        target, set_bufs, slot_bufs = bufs[0], bufs[1:4], bufs[4:]
        fields = dict(mode="call", args=[tensor_arg(target)], sets=[[tensor_arg(b)] for b in set_bufs],
                      outputs=[[b.to_json()] for b in slot_bufs], schedule=schedule, warmup=3, settle_ms=30,
                      flush_bytes=1 << 20)
        fields.update(extra)
        reply = self.runner.ok("time", **fields)
        return reply, sets, views[4:]

    def test_each_raw_call_sees_its_set_and_rows_writes_its_slot_and_is_timed(self):
        reply, sets, slots = self.run_schedule(RUNNER_FIXTURES / "identity.cpp")
        for entry, slot in zip(self.SCHEDULE, slots):
            self.assertTrue(torch.equal(slot, self.expected(sets, entry)), entry)
        times = reply["times_us"]
        self.assertEqual(len(times), 4)
        self.assertGreaterEqual(times[0], SLEEP_US[1])
        self.assertLess(times[1], SLEEP_US[1])
        self.assertGreaterEqual(times[2], SLEEP_US[2])
        self.assertGreaterEqual(times[3], SLEEP_US[1])  # row 0 came from set 1
        self.assertEqual(len(reply["warmup_us"]), 3)
        self.assertTrue(all(t < SLEEP_US[1] for t in reply["warmup_us"]))  # warm-up calls run set 0
        self.assertGreater(reply["settle_calls"], 0)
        self.assertGreaterEqual(reply["settle_ms"], 5.0)
        self.assertEqual((reply["method"], reply["spin_timed_out"]), ("host_clock", False))
        self.assertGreater(reply["enqueue_s"], (SLEEP_US[1] * 2 + SLEEP_US[2]) / 1e6)

    def test_on_the_cpu_a_calls_input_is_written_after_its_flush(self):
        """tests/runner/kernels/input_age.cpp's own thread watches the target and each call writes
        how long its input had been there: microseconds (written after the flush, then evicted),
        not the flush's milliseconds, in which the thread could compute the output beside the loop
        (the native runner's TimeOrder test, here through the python runner's loop)."""
        flush_bytes, calls = 64 << 20, 8
        harness, buffer = Harness(harness_library()), torch.ones(flush_bytes, dtype=torch.uint8)
        harness.host_flush(buffer.data_ptr(), flush_bytes)
        started = time.perf_counter()
        harness.host_flush(buffer.data_ptr(), flush_bytes)
        flush_us = (time.perf_counter() - started) * 1e6
        self.load(REPO / "tests" / "runner" / "kernels" / "input_age.cpp")
        sets = [1000.0 * (k + 1) + torch.arange(16, dtype=torch.float32).view(4, 4) for k in range(2)]
        bufs, views = share(self.runner, 1, (torch.float32, [4, 4]), *sets, *[(torch.float32, [4, 4])] * calls)
        reply = self.runner.ok("time", mode="call", args=[tensor_arg(bufs[0])],
                               sets=[[tensor_arg(b)] for b in bufs[1:3]], outputs=[[b.to_json()] for b in bufs[3:]],
                               schedule=[{"set": j % 2, "slot": j} for j in range(calls)], warmup=2, settle_ms=0,
                               flush_bytes=flush_bytes)
        self.assertTrue(reply["inputs_after_flush"])
        for j, slot in enumerate(views[3:]):
            self.assertEqual(float(slot[0, 1]), 1000.0 * (j % 2 + 1) + 1, j)
        ages = sorted(float(slot[0, 0]) for slot in views[3:])
        self.assertLess(ages[calls // 2], flush_us / 4, f"a flush of 64 MiB took {flush_us:.0f} us; ages (us) {ages}")

    def test_torch_form_results_are_copied_into_each_slot(self):
        reply, sets, slots = self.run_schedule(RUNNER_FIXTURES / "identity_torch.cpp", settle_ms=0, flush_bytes=0)
        for entry, slot in zip(self.SCHEDULE, slots):
            self.assertTrue(torch.equal(slot, self.expected(sets, entry)), entry)
        self.assertEqual((reply["settle_ms"], reply["settle_calls"]), (0.0, 0))
        self.assertTrue(all(t > 0 for t in reply["times_us"]))

    def test_each_call_mixes_every_set_element_by_element_in_both_forms(self):
        from hone_worker.runner.harness import Harness
        harness = Harness(harness_library())
        schedule = [{"set": i % 3, "slot": i, "mix": {"seed": 900 + i, "args": [0]}} for i in range(4)]
        for kernel in ("identity.cpp", "identity_torch.cpp"):
            with self.subTest(kernel=kernel):
                self.setUp()
                reply, sets, slots = self.run_schedule(RUNNER_FIXTURES / kernel, schedule=schedule, settle_ms=0)
                self.assertEqual(len(reply["times_us"]), 4)
                stacked = torch.stack(sets).view(3, -1)
                for entry, slot in zip(schedule, slots):
                    seed = entry["mix"]["seed"]
                    chosen = torch.tensor([harness.mix_choice(seed, e) % 3 for e in range(32)])
                    expected = stacked.gather(0, chosen.unsqueeze(0)).view(4, 8)
                    self.assertTrue(torch.equal(slot, expected), entry)
                    self.assertGreater(int((chosen != entry["set"]).sum()), 10)  # not the entry's own set
                self.runner.close()

    def test_an_overwritten_call_shows_a_result_that_is_its_argument(self):
        schedule = [{"set": 0, "slot": 0}, {"set": 1, "slot": 1, "overwrite_arguments": True},
                    {"set": 2, "slot": 2, "overwrite_arguments": True}, {"set": 0, "slot": 3}]
        _, sets, slots = self.run_schedule(RUNNER_FIXTURES / "identity_torch.cpp", schedule=schedule, settle_ms=0)
        for entry, slot in zip(schedule, slots):  # an honest result is its own memory
            self.assertTrue(torch.equal(slot, sets[entry["set"]]), entry)
        self.runner.close()
        self.setUp()
        self.load(ADVERSARIAL / "cpu" / "alias_remap_torch.cpp")
        specs = [(torch.float32, [4, 8])] + input_sets() + [(torch.float32, [4, 8])] * len(schedule)
        bufs, views = share(self.runner, 1, *specs)
        self.runner.ok("time", mode="call", args=[tensor_arg(bufs[0])], sets=[[tensor_arg(b)] for b in bufs[1:4]],
                       outputs=[[b.to_json()] for b in bufs[4:]], schedule=schedule)
        overwritten = [bool(v.isnan().all()) for v in views[4:]]
        self.assertEqual(overwritten, [False, True, True, False])
        self.assertTrue(torch.equal(views[0], input_sets()[0]))  # the op ends with the last call's input

    def test_reference_form_is_timed_by_the_same_loop(self):
        self.runner.ok("load", form="reference", source=str(TASKS / "relu.py"), seed=1)
        x = torch.randn(64, 4096)
        (target, xs, out0, out1), views = share(self.runner, 1, torch.zeros(64, 4096), x, (torch.float32, [64, 4096]),
                                                (torch.float32, [64, 4096]))
        reply = self.runner.ok("time", mode="call", args=[tensor_arg(target)], sets=[[tensor_arg(xs)]],
                               outputs=[[out0.to_json()], [out1.to_json()]],
                               schedule=[{"set": 0, "slot": 0}, {"set": 0, "slot": 1}], warmup=1)
        self.assertEqual(len(reply["times_us"]), 2)
        self.assertTrue(torch.equal(views[2], torch.relu(x)) and torch.equal(views[3], torch.relu(x)))

    def test_the_null_form_costs_almost_nothing(self):
        self.runner.ok("load", form="null")
        (x,), _ = share(self.runner, 1, torch.ones(4))
        reply = self.runner.ok("time", mode="call", args=[tensor_arg(x)], outputs=[[]],
                               schedule=[{"set": 0, "slot": 0}] * 50)
        self.assertEqual(len(reply["times_us"]), 50)
        self.assertLess(sorted(reply["times_us"])[25], 100.0)

    def test_bad_time_requests_are_bad_requests_and_device_mode_needs_cuda(self):
        self.load(RUNNER_FIXTURES / "identity.cpp")
        (x, y, small, out), _ = share(self.runner, 1, torch.ones(4, 8), torch.ones(4, 8), torch.ones(2, 8),
                                      (torch.float32, [4, 8]))
        base = dict(mode="call", args=[tensor_arg(x)], sets=[[tensor_arg(y)]], outputs=[[out.to_json()]],
                    schedule=[{"set": 0, "slot": 0}])
        for change, kind, words in (({"schedule": [{"set": 0, "slot": 3}]}, "bad_request", "slot"),
                                    ({"sets": [[tensor_arg(small)]]}, "bad_request", "differ"),
                                    ({"schedule": [{"set": 0, "rows": [[0, 9, 0]]}]}, "bad_request", "no row 9"),
                                    ({"warmup": -1}, "bad_request", "warmup"),
                                    ({"kernel_records": True}, "bad_request", "mode device"),
                                    ({"kernel_records": "yes"}, "bad_request", "true or false"),
                                    ({"settle_min_ms": -1}, "bad_request", "settle_min_ms"),
                                    ({"kernel_counters": -1}, "bad_request", "kernel_counters"),
                                    ({"kernel_counters": 64}, "unsupported", "CUDA device (hardware counters)"),
                                    ({"flush_each_kernel": True}, "bad_request", "needs kernel_counters"),
                                    ({"flush_each_kernel": "yes"}, "bad_request", "true or false"),
                                    ({"mode": "device"}, "unsupported", "CUDA")):
            reply = self.runner.request("time", **dict(base, **change))
            self.assertEqual(reply["error"]["kind"], kind, change)
            self.assertIn(words, reply["error"]["message"])
        for fields, kind, words in (({"kernel_counters": 1024}, "unsupported", "CUDA device (hardware counters)"),
                                    ({"kernel_counters": 0}, "bad_request", "1..4096"),
                                    ({}, "bad_request", "1..4096")):
            reply = self.runner.request("prepare_counters", **fields)
            self.assertEqual(reply["error"]["kind"], kind, fields)
            self.assertIn(words, reply["error"]["message"])

    def test_a_forward_that_raises_in_a_timed_call_is_a_forward_error(self):
        self.load(ADVERSARIAL / "cpu" / "throws.cpp")
        (x, out), _ = share(self.runner, 1, torch.ones(4), (torch.float32, [4]))
        reply = self.runner.request("time", mode="call", args=[tensor_arg(x)], outputs=[[out.to_json()]],
                                    schedule=[{"set": 0, "slot": 0}])
        self.assertEqual(reply["error"]["kind"], "forward_error")
        self.assertIn("gives up", reply["error"]["message"])


class WithoutHarnessTest(RunnerTestCase):
    def setUp(self) -> None:
        self.runner = RunnerClient(env={"HONE_HARNESS_LIBRARY": "/nonexistent/libhone_harness.so"})

    def test_a_flush_without_the_harness_library_is_unsupported_and_names_it(self):
        self.runner.ok("load", form="null")
        (x,), _ = share(self.runner, 1, torch.ones(4))
        reply = self.runner.request("time", mode="call", args=[tensor_arg(x)], outputs=[[]],
                                    schedule=[{"set": 0, "slot": 0}], flush_bytes=4096)
        self.assertEqual(reply["error"]["kind"], "unsupported")
        self.assertIn("/nonexistent/libhone_harness.so", reply["error"]["message"])
        self.assertTrue(self.runner.ok("time", mode="call", args=[tensor_arg(x)], outputs=[[]],
                                       schedule=[{"set": 0, "slot": 0}])["ok"])


class RecordsCpuTest(RunnerTestCase):
    def test_reference_records_name_the_aten_ops_it_called(self):
        self.runner.ok("load", form="reference", source=str(TASKS / "relu.py"), seed=1)
        x = torch.randn(64, 4096)
        (xb, out), views = share(self.runner, 1, x, (torch.float32, [64, 4096]))
        reply = self.runner.ok("records", args=[tensor_arg(xb)], outputs=[out.to_json()])
        self.assertEqual(reply["library_ops"], ["aten::relu x1"])
        self.assertEqual((reply["activities"], reply["caller_stream"]), ([], None))
        self.assertGreater(reply["timed_us"], 0)
        self.assertTrue(torch.equal(views[1], torch.relu(x)))

    def test_torch_form_records_see_a_library_op_inside_forward(self):
        self.load(ADVERSARIAL / "cpu" / "library_op_torch.cpp")
        (xb, out), _ = share(self.runner, 1, torch.randn(8, 8), (torch.float32, [8, 8]))
        self.assertEqual(self.runner.ok("records", args=[tensor_arg(xb)], outputs=[out.to_json()])["library_ops"],
                         ["aten::relu x1"])


@unittest.skipUnless(torch.cuda.is_available(), "skipped: no GPU (CUDA runner tests need one)")
class CudaRunnerTest(unittest.TestCase):
    """The same ops on cuda:0 with VMM arenas (the suite scripts/gpu/pyrunner.sh runs)."""

    def setUp(self) -> None:
        self.runner = RunnerClient(device="cuda:0", env={"HONE_HARNESS_LIBRARY": harness_library()})
        self.arenas = []

    def tearDown(self) -> None:
        self.runner.close()

    def cuda_share(self, arena_id: int, *specs):
        from hone_worker.arena import CudaArena, Layout

        layout = Layout(arena_id)
        bufs = [layout.place(s.dtype, s.shape) if isinstance(s, torch.Tensor) else layout.place(*s) for s in specs]
        arena = CudaArena.create(arena_id, layout.size, 0)
        self.arenas.append(arena)
        self.runner.ok("map", [arena.fd], arenas=[{"arena": arena_id, "kind": "cuda", "bytes": arena.size}])
        views = [arena.view(b) for b in bufs]
        for spec, view in zip(specs, views):
            if isinstance(spec, torch.Tensor):
                view.copy_(spec)
        torch.cuda.synchronize()
        return bufs, views

    def release_word(self, arena_id: int):
        from hone_worker.arena import HostArena, Layout

        layout = Layout(arena_id)
        buf = layout.place(torch.int32, [1])
        arena = HostArena.create(arena_id, layout.size)
        self.arenas.append(arena)
        self.runner.ok("map", [arena.fd], arenas=[{"arena": arena_id, "kind": "host", "bytes": arena.size,
                                                   "register": True}])
        return buf, arena.view(buf)

    def load(self, source, **fields) -> dict:
        built = build(source, "cuda")
        fields.setdefault("form", built.form)
        if built.namespace:
            fields.setdefault("namespace", built.namespace)
        return self.runner.ok("load", library=built.library, **fields)

    def timing_request(self, mode: str, n: int = 20):
        x = [torch.randn(256, 2048, device="cuda") for _ in range(3)]
        bufs, views = self.cuda_share(1, torch.zeros(256, 2048, device="cuda"), *x,
                                      *[(torch.float32, [256, 2048])] * n)
        schedule = [{"set": i % 3, "slot": i, "rows": [[0, 5, (i + 1) % 3]]} for i in range(n)]
        fields = dict(mode=mode, args=[tensor_arg(bufs[0])], sets=[[tensor_arg(b)] for b in bufs[1:4]],
                      outputs=[[b.to_json()] for b in bufs[4:]], schedule=schedule, warmup=5, settle_ms=200,
                      flush_bytes=64 << 20)
        expected = []
        for entry in schedule:
            t = x[entry["set"]].clone()
            t[5] = x[(entry["set"] + 1) % 3][5]
            expected.append(torch.relu(t))
        return fields, views[4:], expected

    def test_ready_on_cuda_names_the_device(self):
        self.assertEqual(self.runner.ready["device"], "cuda:0")
        self.assertLess(self.runner.ready_s, 60)

    def test_raw_and_torch_calls_on_vmm_arenas(self):
        self.load(TASKS / "relu.cu")
        x = torch.randn(64, 4096, device="cuda")
        (xb, out), views = self.cuda_share(1, x, (torch.float32, [64, 4096]))
        self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])
        self.assertTrue(torch.equal(views[1], torch.relu(x)))

    def test_torch_form_returned_device_and_poison(self):
        self.load(ADVERSARIAL / "cuda" / "uninit_output_torch.cu")
        from hone_worker.poison import allocator_poisoned

        (xb, out), views = self.cuda_share(1, torch.rand(64, 4096, device="cuda"), (torch.float32, [64, 4096]))
        reply = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()], poison=True)
        self.assertEqual(reply["returned"][0]["device"], "cuda:0")
        self.assertTrue(bool((allocator_poisoned(views[1]) | torch.isnan(views[1])).all()))

    def test_time_call_mode_on_cuda(self):
        self.load(TASKS / "relu.cu")
        fields, slots, expected = self.timing_request("call")
        reply = self.runner.ok("time", **fields)
        self.assertEqual(reply["method"], "cuda_events")
        self.assertTrue(all(t > 0 for t in reply["times_us"]))
        for slot, want in zip(slots, expected):
            self.assertTrue(torch.equal(slot, want))

    def test_time_device_mode_holds_the_stream_until_the_judge_releases_it(self):
        self.load(TASKS / "relu.cu")
        fields, slots, expected = self.timing_request("device")
        release, word = self.release_word(2)
        fields.update(release=release.to_json(), spin_timeout_ms=20000)
        self.runner.send(dict(fields, id=99, op="time"))
        self.assertEqual(self.runner.receive(120), {"id": 99, "event": "enqueued"})
        word.fill_(1)
        self.assertEqual(self.runner.receive(120), {"id": 99, "event": "finished"})
        torch.cuda.synchronize()
        for slot, want in zip(slots, expected):  # "finished": every call ran before the reply
            self.assertTrue(torch.equal(slot, want))
        reply = self.runner.receive(120)
        self.assertTrue(reply["ok"], reply)
        self.assertEqual((reply["method"], reply["spin_timed_out"]), ("cuda_events_held_stream", False))
        self.assertEqual(len(reply["times_us"]), len(slots))
        for slot, want in zip(slots, expected):
            self.assertTrue(torch.equal(slot, want))
        word.fill_(0)
        fields.update(spin_timeout_ms=300)
        reply = self.runner.ok("time", **dict(fields, schedule=fields["schedule"][:2]))
        self.assertTrue(reply["spin_timed_out"])

    def test_kernel_records_list_each_held_calls_kernels_between_its_flush_and_its_marker(self):
        from hone_worker import kernel_records, records

        self.load(TASKS / "relu.cu")
        fields, slots, expected = self.timing_request("device")
        release, word = self.release_word(2)
        fields.update(release=release.to_json(), spin_timeout_ms=20000, kernel_records=True)
        self.runner.send(dict(fields, id=98, op="time"))
        self.assertEqual(self.runner.receive(120), {"id": 98, "event": "enqueued"})
        word.fill_(1)
        self.assertEqual(self.runner.receive(120), {"id": 98, "event": "finished"})
        reply = self.runner.receive(120)
        self.assertTrue(reply["ok"], reply)
        self.assertIn("activities", reply, reply.get("kernel_records_error"))
        acts = [records.Activity.from_json(a) for a in reply["activities"]]
        names = [a.name for a in acts]
        self.assertEqual((names.count("hone_hold"), names.count("hone_flush"), names.count("hone_marker")),
                         (1, len(slots), len(slots)))
        times, why = kernel_records.per_call_us(acts, len(slots), flushed=True)
        self.assertEqual(why, "")
        for kernel_us, events_us in zip(times, reply["times_us"]):
            self.assertGreater(kernel_us, 0)
            self.assertLessEqual(kernel_us, events_us + 0.5)
        for slot, want in zip(slots, expected):
            self.assertTrue(torch.equal(slot, want))
        print(f"\npython runner kernel records: median kernel {sorted(times)[len(times) // 2]:.2f} us, "
              f"events {sorted(reply['times_us'])[len(times) // 2]:.2f} us")

    def test_kernel_counters_count_each_calls_kernels_between_its_flush_and_its_marker(self):
        from hone_worker import kernel_counters

        self.load(TASKS / "relu.cu")
        fields, slots, expected = self.timing_request("call")
        fields.update(kernel_counters=1024)
        reply = self.runner.ok("time", **fields)
        self.assertIn("counter_ranges", reply, reply.get("kernel_counters_error"))
        ranges, why = kernel_counters.parse(reply)
        self.assertEqual(why, "")
        self.assertEqual(len(ranges), 3 * len(slots))  # flush, relu.cu's one kernel, marker
        times, why = kernel_counters.per_call_us(ranges, len(slots), True, 1)
        self.assertEqual(why, "")
        for t in times:
            self.assertGreater(t, 0.5)  # 2 MiB in and out: a few us on any GPU
            self.assertLess(t, 500.0)
        for slot, want in zip(slots, expected):
            self.assertTrue(torch.equal(slot, want))
        print(f"\npython runner kernel counters: median {sorted(times)[len(times) // 2]:.2f} us "
              f"(setup and region {reply.get('counter_seconds')})")

    def test_counted_calls_flush_before_each_of_their_kernels(self):
        """flush_each_kernel: the kernel prologue runs hone_flush before each of a call's two
        kernels (relu, then mul), as ncu flushes before each kernel; none before hone's own."""
        from hone_worker import kernel_counters

        self.load(RUNNER_FIXTURES / "relu_twice_torch.cpp")
        fields, slots, expected = self.timing_request("call")
        fields.update(kernel_counters=1024, flush_each_kernel=True)
        reply = self.runner.ok("time", **fields)
        self.assertIn("counter_ranges", reply, reply.get("kernel_counters_error"))
        self.assertTrue(reply.get("flushed_each_kernel"), reply.get("kernel_flush_error"))
        n = len(slots)
        self.assertEqual(reply["kernel_prologue"], {"launches": 2 * n, "failures": 0, "first_failure": 0, "graphs": 0,
                                                    "missed": 0})
        self.assertEqual(kernel_counters.flush_layout(reply, True, n, 2), (True, ""))
        ranges, why = kernel_counters.parse(reply)
        self.assertEqual(len(ranges), 5 * n)  # per call: flush, relu, flush, mul, marker
        times, why = kernel_counters.per_call_us(ranges, n, True, 2, 0, each_kernel=True)
        self.assertEqual(why, "")
        kernels = kernel_counters.per_kernel_p50(ranges, n, True, 2, 0, True, ["relu", "mul"])
        self.assertEqual([k["name"] for k in kernels], ["relu", "mul"])
        self.assertTrue(all(k["p50_us"] > 0 for k in kernels), kernels)
        self.assertLess(abs(sum(k["p50_us"] for k in kernels) / sorted(times)[n // 2] - 1), 0.25, (kernels, times))
        flushes = [us for i, (_, us) in enumerate(ranges) if i % 5 in (0, 2)]
        self.assertGreater(min(flushes), max(times) / 2)  # 64 MiB read (and the SMs' code evicted): the longest
        for slot, want in zip(slots, expected):
            self.assertTrue(torch.equal(slot, want))
        print(f"\npython runner, flushed before each kernel: median call {sorted(times)[n // 2]:.2f} us, "
              f"median flush {sorted(flushes)[len(flushes) // 2]:.2f} us")

    def test_counters_prepared_ahead_are_started_by_the_counted_time_op(self):
        prepared = self.runner.ok("prepare_counters", kernel_counters=1024)
        self.assertIn("setup", prepared["seconds"])
        self.load(TASKS / "relu.cu")
        fields, slots, _ = self.timing_request("call")
        fields.update(kernel_counters=1024)
        reply = self.runner.ok("time", **fields)
        self.assertIn("counter_ranges", reply, reply.get("kernel_counters_error"))
        self.assertIn("prepared_ahead", reply["counter_seconds"])
        print(f"\n[prepared counters] python runner: set up ahead in {reply['counter_seconds']['prepared_ahead']:.3f} s; "
              f"the counted op's {reply['counter_seconds']}")

    def test_records_bracket_the_call_with_hone_spin_and_hone_marker(self):
        self.load(TASKS / "relu.cu")
        (xb, out), _ = self.cuda_share(1, torch.randn(64, 4096, device="cuda"), (torch.float32, [64, 4096]))
        reply = self.runner.ok("records", args=[tensor_arg(xb)], outputs=[out.to_json()], spin_us=500)
        names = [a["name"] for a in reply["activities"]]
        self.assertEqual(names[0], "hone_spin")
        self.assertEqual(names[-1], "hone_marker")
        self.assertTrue(any("relu" in n for n in names), names)
        self.assertEqual(reply["caller_stream"], reply["activities"][0]["stream"])
        self.assertGreater(reply["timed_us"], 0)

    def test_an_illegal_address_is_a_cuda_error(self):
        self.load(ADVERSARIAL / "cuda" / "illegal_address.cu")
        (xb, out), _ = self.cuda_share(1, torch.randn(1024, device="cuda"), (torch.float32, [1024]))
        reply = self.runner.request("call", args=[tensor_arg(xb)], outputs=[out.to_json()])
        self.assertEqual(reply["error"]["kind"], "cuda_error", reply)

    def test_compiled_reference_is_warmed_until_nothing_recompiles(self):
        self.runner.ok("load", form="reference", source=str(TASKS / "relu.py"), seed=1, compile=True)
        x = torch.randn(64, 4096, device="cuda")
        (target, xs, out), views = self.cuda_share(1, torch.zeros(64, 4096, device="cuda"), x,
                                                   (torch.float32, [64, 4096]))
        reply = self.runner.ok("time", timeout=600, mode="call", args=[tensor_arg(target)], sets=[[tensor_arg(xs)]],
                               outputs=[[out.to_json()]], schedule=[{"set": 0, "slot": 0}] * 5, warmup=2)
        self.assertGreaterEqual(reply["compile_warmup_calls"], 2)
        self.assertGreaterEqual(reply["compilations"], 1)  # dynamo's counters saw the compilation
        self.assertEqual(reply["recompilations"], 0)
        self.assertTrue(torch.equal(views[2], torch.relu(x)))


class ClockWindowTest(unittest.TestCase):
    """What Python runs inside a timed call's window on a CUDA clock: between the start event's
    record and the end event's only the call itself. Two _Clock.mark() calls around the call put
    their own Python (a method call, the device test, the pop) there, 0.5-0.8 us above the same
    events recorded inline (bench/probes/method_probe.py hone_marks, H100, 2026-12-07). Runs on the
    CPU: the events are stand-ins that log their records, the Python in between is traced."""

    class Event:
        log = []

        def __init__(self, enable_timing=False):
            self.timing = enable_timing

        def record(self, stream=None):
            ClockWindowTest.Event.log.append(("record", self))

    def window_calls(self, timed) -> list:
        """The functions called between the first record's return and the second record's call
        within timed()."""
        import sys

        seen, log = [], ClockWindowTest.Event.log

        def profile(frame, event, arg):
            if len(log) == 1 and event in ("call", "c_call"):
                seen.append(frame.f_code.co_name if event == "call" else getattr(arg, "__name__", str(arg)))

        log.clear()
        sys.setprofile(profile)
        try:
            timed()
        finally:
            sys.setprofile(None)
        self.assertEqual(len(log), 2, log)
        return seen[:seen.index("record")] if "record" in seen else seen

    def test_the_window_holds_the_call_alone(self):
        from unittest import mock

        from hone_worker.runner import timed_calls

        def forward():
            return "result"

        with mock.patch("torch.cuda.Event", ClockWindowTest.Event):
            clock = timed_calls._Clock(is_cuda=True)
            with mock.patch.object(ClockWindowTest.Event, "record", lambda self, stream=None: None):
                clock.prepare(4)
            result, (start, end) = None, (None, None)

            def timed():
                nonlocal result, start, end
                result, (start, end) = clock.around(forward)

            inside = self.window_calls(timed)
        self.assertEqual(result, "result")
        self.assertIsNot(start, end)
        self.assertEqual(ClockWindowTest.Event.log, [("record", start), ("record", end)])
        # From the start record's return to the end record's call: forward, and nothing of the clock.
        self.assertEqual(inside, ["forward"])

    def test_marks_around_the_call_would_put_the_clock_inside(self):
        """The measure of the test above can fail: the two-mark window it replaced is caught."""
        from unittest import mock

        from hone_worker.runner import timed_calls

        def forward():
            return None

        with mock.patch("torch.cuda.Event", ClockWindowTest.Event):
            clock = timed_calls._Clock(is_cuda=True)
            with mock.patch.object(ClockWindowTest.Event, "record", lambda self, stream=None: None):
                clock.prepare(4)

            def timed():
                clock.mark()
                forward()
                clock.mark()

            inside = self.window_calls(timed)
        self.assertIn("mark", inside)


@unittest.skipUnless(torch.cuda.is_available(), "skipped: no GPU (CUDA runner tests need one)")
class CallWindowTest(unittest.TestCase):
    """In the runner's own loop (in-process): what a call-time pass puts around its calls. Plain
    events flush the L2 alone and record events that exist already; the loop read 1.1-1.4x plain
    events in one process on the H100 while it made each mark's event at its record and evicted
    the code too (bench/probes/method_probe.py, 2026-12-06)."""

    def loop(self, harness):
        from hone_worker.devices import Device
        from hone_worker.runner import timed_calls
        from hone_worker.runner.forms import Candidate

        class Relu(Candidate):
            form, writes_outputs = "test", False

            def bind(self, args, outputs):
                return lambda: torch.relu(args[0])

        x = torch.randn(1024, device="cuda")
        device = Device("cuda", torch.cuda.current_device())
        plan = timed_calls.TimePlan("call", [x], [], [[torch.empty_like(x)]], [timed_calls._Entry(0, 0, [])] * 8, 2,
                                    0.0, 0.0, 1 << 20, None, None, 10_000.0)
        return timed_calls.TimedLoop(plan, Relu(), harness, device, *timed_calls.flush_buffers(device, 1 << 20, ()))

    def test_call_time_flushes_the_l2_alone_and_makes_no_event_in_the_timed_calls(self):
        from unittest import mock

        from hone_worker.runner.harness import harness

        real, evicted = harness(), []

        class Recording:
            def __getattr__(self, name):
                return getattr(real, name)

            def flush(self, stream, buffer, size, sink, evict_code=True):
                evicted.append(evict_code)
                real.flush(stream, buffer, size, sink, evict_code)

        loop = self.loop(Recording())
        prepare = loop.clock.prepare
        with mock.patch("torch.cuda.Event", wraps=torch.cuda.Event) as made:
            def prepared(count):
                prepare(count)
                made.reset_mock()  # from here on: the timed calls

            loop.clock.prepare = prepared
            reply = loop.run(lambda event: None)
        self.assertEqual(len(reply["times_us"]), 8)
        self.assertEqual(made.call_count, 0, "an event made inside the timed calls")
        self.assertEqual(len(evicted), 2 + 8)  # the warm-up's calls and the timed ones
        self.assertFalse(any(evicted), "a call-time flush evicted the code (ncu's flush is for counted calls)")


if __name__ == "__main__":
    unittest.main()
