"""The python runner (hone_worker.runner) over a real socketpair, on the CPU: the ready event,
host arenas, the raw, torch, reference and null forms, `returned` metadata, poisoning, errors as
replies, a crash the judge sees, and a protocol stream nothing the candidate prints can reach."""
import ctypes
import unittest

import torch

from common import ADVERSARIAL, FIXTURES, TASKS
from kernel_build import build
from runner_cases import RUNNER_FIXTURES, RunnerTestCase, share
from runner_client import RunnerClient, RunnerDied

from hone_worker.abi import ArgBlock, ArgDesc, RawLibrary
from hone_worker.arena import Layout, scalar_arg, tensor_arg
from hone_worker.devices import Device
from hone_worker.instance import build_instance, run_reference
from hone_worker.poison import allocator_poisoned
from hone_worker.task import load_task

class ReadyAndTransportTest(RunnerTestCase):
    def test_ready_describes_the_runner(self):
        ready = self.runner.ready
        self.assertEqual(ready["event"], "ready")
        self.assertEqual((ready["protocol"], ready["runner"], ready["device"]), (1, "python", "cpu"))
        self.assertEqual(ready["pid"], self.runner.process.pid)
        self.assertEqual(ready["torch"], torch.__version__)
        self.assertIs(ready["cupti"], False)
        for form in ("raw", "torch", "reference", "null"):
            self.assertIn(form, ready["forms"])
        self.assertLess(self.runner.ready_s, 60)

    def test_malformed_messages_get_a_bad_request_and_the_runner_goes_on(self):
        for raw in (b"{not json", b"[1, 2]", b'{"op": "exit"}', "\u00e9".encode("latin-1")):
            self.runner.send_raw(raw)
            reply = self.runner.receive(60)
            self.assertEqual((reply["id"], reply["ok"], reply["error"]["kind"]), (None, False, "bad_request"), raw)
        reply = self.runner.request("frobnicate")
        self.assertEqual(reply["error"]["kind"], "bad_request")
        self.assertIn("frobnicate", reply["error"]["message"])
        self.assertTrue(self.runner.ok("load", form="null")["ok"])

    def test_exit_replies_then_ends_the_process_with_status_0(self):
        reply = self.runner.request("exit")
        self.assertEqual(reply, {"id": reply["id"], "ok": True})
        self.assertEqual(self.runner.process.wait(30), 0)

    def test_prints_from_the_candidate_and_the_task_never_reach_the_socket(self):
        self.load(FIXTURES / "prints.cpp")
        (x, out), _ = share(self.runner, 1, torch.ones(4, 4), (torch.float32, [4, 4]))
        for _ in range(3):
            reply = self.runner.request("call", args=[tensor_arg(x)], outputs=[out.to_json()])
            self.assertEqual(reply, {"id": reply["id"], "ok": True})
        self.assertTrue(self.runner.stderr_has('"result": {"status": "correct"}'))

    def test_prints_from_a_reference_task_go_to_stderr(self):
        self.runner.ok("load", form="reference", source=str(FIXTURES / "noisy.py"), seed=1)
        (x, out), views = share(self.runner, 1, torch.ones(8, 8), (torch.float32, [8, 8]))
        reply = self.runner.ok("call", args=[tensor_arg(x)], outputs=[out.to_json()])
        self.assertEqual(len(reply["returned"]), 1)
        self.assertTrue(torch.equal(views[1], torch.full((8, 8), 2.0)))
        self.assertTrue(self.runner.stderr_has("forged"))
        self.assertTrue(self.runner.stderr_has("task module loading"))


class StartUpFailureTest(unittest.TestCase):
    def test_a_bad_device_argument_exits_2_and_an_absent_gpu_exits_3_before_ready(self):
        with self.assertRaises(RunnerDied) as died:
            RunnerClient(device="tpu")
        self.assertEqual(died.exception.code, 2)
        if torch.cuda.is_available():
            self.skipTest("this machine has a GPU: cuda:0 is usable")
        with self.assertRaises(RunnerDied) as died:
            RunnerClient(device="cuda:0")
        self.assertEqual(died.exception.code, 3)
        self.assertIn("cuda:0 is not visible", str(died.exception))


class ArenaMappingTest(RunnerTestCase):
    def test_map_checks_fds_ids_and_bounds(self):
        layout = Layout(1)
        buf = layout.place(torch.float32, [16])
        arena = self.runner.host_arena(1, layout)
        reply = self.runner.request("map", [arena.fd], arenas=[{"arena": 1, "kind": "host", "bytes": arena.size}])
        self.assertEqual(reply["error"]["kind"], "bad_request")
        self.assertIn("already mapped", reply["error"]["message"])
        reply = self.runner.request("map", [], arenas=[{"arena": 2, "kind": "host", "bytes": 4096}])
        self.assertIn("one fd per arena", reply["error"]["message"])
        reply = self.runner.request("map", [arena.fd], arenas=[{"arena": 3, "kind": "cuda", "bytes": 4096}])
        self.assertEqual(reply["error"]["kind"], "unsupported")
        self.runner.ok("load", form="null")
        past = dict(buf.to_json(), offset=arena.size - 32)
        reply = self.runner.request("call", args=[{"kind": "tensor", "buf": past}], outputs=[])
        self.assertEqual(reply["error"]["kind"], "bad_request")
        self.assertIn("past the end", reply["error"]["message"])


class RawLibraryTest(unittest.TestCase):
    def test_forward_address_is_the_entry_point_a_c_caller_calls(self):
        library = RawLibrary(build(TASKS / "relu.cpp").library)
        x = torch.randn(8, 16)
        out = torch.full_like(x, float("nan"))
        block = ArgBlock([x, out])
        forward = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(ArgDesc), ctypes.c_int32, ctypes.c_void_p,
                                   ctypes.c_char_p, ctypes.c_int32)(library.forward_address)
        error = ctypes.create_string_buffer(256)
        self.assertEqual(forward(block.descs, block.count, None, error, 256), 0, error.value)
        self.assertTrue(torch.equal(out, torch.relu(x)))


class FormsTest(RunnerTestCase):
    def test_raw_kernel_writes_the_judges_output_buffer(self):
        loaded = self.load(TASKS / "relu.cpp")
        self.assertEqual(loaded["declared"], "in:float32,out:float32,stream")
        x = torch.randn(64, 4096)
        (xb, out), views = share(self.runner, 1, x, (torch.float32, [64, 4096]))
        reply = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()], label="trial 1")
        self.assertNotIn("returned", reply)
        self.assertTrue(torch.equal(views[1], torch.relu(x)))
        self.assertTrue(self.runner.stderr_has("hone-runner: call trial 1"))

    def test_torch_kernel_result_is_copied_and_described(self):
        loaded = self.load(TASKS / "relu_torch.cpp")
        self.assertEqual(loaded["declared"], {"arguments": ["Tensor"], "returns": 1})
        x = torch.randn(64, 4096)
        (xb, out), views = share(self.runner, 1, x, (torch.float32, [64, 4096]))
        reply = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])
        self.assertTrue(torch.equal(views[1], torch.relu(x)))
        (entry,) = reply["returned"]
        self.assertEqual((entry["shape"], entry["dtype"], entry["strides"], entry["device"]),
                         ([64, 4096], "float32", [4096, 1], "cpu"))
        self.assertEqual((entry["aliases"], entry["same_as"], entry["overlaps_self"]), ([], [], False))
        base = self.runner.addresses[1]
        self.assertFalse(base <= entry["storage"] < base + 2 * 64 * 4096 * 4, entry["storage"])

    def test_an_output_that_is_the_input_is_named_as_an_alias(self):
        self.load(ADVERSARIAL / "cpu" / "return_input_torch.cpp")
        x = torch.rand(8, 8)
        (xb, out), views = share(self.runner, 1, x, (torch.float32, [8, 8]))
        (entry,) = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])["returned"]
        self.assertEqual(entry["aliases"], [0])
        self.assertEqual(entry["storage"], self.runner.addresses[1] + xb.offset)
        self.assertFalse(entry["changed_with_arguments"])  # a visible view is copied as it is: the judge decides
        self.assertTrue(torch.equal(views[1], x))

    def test_an_output_that_is_the_input_under_another_mapping_changes_with_it(self):
        self.load(ADVERSARIAL / "cpu" / "alias_remap_torch.cpp")
        x = torch.rand(8, 8)
        (xb, out), views = share(self.runner, 1, x, (torch.float32, [8, 8]))
        (entry,) = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])["returned"]
        self.assertEqual(entry["aliases"], [])  # no address comparison sees it ...
        self.assertTrue(entry["changed_with_arguments"])  # ... the overwrite does
        self.assertTrue(bool(views[1].isnan().all()))
        self.assertTrue(torch.equal(views[0], x))  # the argument was put back

    def test_an_honest_result_does_not_change_with_its_arguments(self):
        self.load(RUNNER_FIXTURES / "identity_torch.cpp")
        x = torch.rand(4, 8)
        (xb, out), views = share(self.runner, 1, x, (torch.float32, [4, 8]))
        (entry,) = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])["returned"]
        self.assertEqual((entry["aliases"], entry["changed_with_arguments"]), ([], False))
        self.assertTrue(torch.equal(views[1], x) and torch.equal(views[0], x))

    def test_one_tensor_returned_twice_and_again_next_call_is_told(self):
        self.load(RUNNER_FIXTURES / "cached_pair_torch.cpp")
        (xb, o0, o1), _ = share(self.runner, 1, torch.rand(4, 4), (torch.float32, [4, 4]), (torch.float32, [4, 4]))
        first = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[o0.to_json(), o1.to_json()])["returned"]
        second = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[o0.to_json(), o1.to_json()])["returned"]
        self.assertEqual([e["same_as"] for e in first], [[], [0]])
        self.assertEqual([e["aliases"] for e in first], [[], []])
        self.assertEqual(first[0]["storage"], second[0]["storage"])
        self.assertEqual(second[0]["storage"], second[1]["storage"])

    def test_an_output_whose_elements_overlap_is_told(self):
        self.load(RUNNER_FIXTURES / "expanded_torch.cpp")
        (xb, out), views = share(self.runner, 1, torch.rand(4, 4), (torch.float32, [4, 4]))
        (entry,) = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])["returned"]
        self.assertTrue(entry["overlaps_self"])
        self.assertEqual(entry["strides"], [0, 1])
        self.assertTrue(torch.equal(views[1], views[0][0].expand(4, 4)))

    def test_poison_makes_an_unwritten_torch_output_read_as_poison(self):
        self.load(ADVERSARIAL / "cpu" / "uninit_output_torch.cpp")
        (xb, out), views = share(self.runner, 1, torch.rand(8, 8), (torch.float32, [8, 8]))
        reply = self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()], poison=True)
        self.assertNotIn("poison_problems", reply)
        # glibc's perturbation (0x7F bytes), or NaN where torch >= 2.1 fills uninitialized memory
        self.assertTrue(bool((allocator_poisoned(views[1]) | torch.isnan(views[1])).all()), views[1])

    def test_reference_form_is_the_judges_model_for_the_seed(self):
        task_path = TASKS / "gemm_bias_relu.py"
        loaded = self.runner.ok("load", form="reference", source=str(task_path), seed=7)
        judge = build_instance(load_task(str(task_path)), Device("cpu"), 7)
        self.assertEqual([p["name"] for p in loaded["params"]], ["linear.weight", "linear.bias"])
        self.assertEqual(loaded["params"][0]["shape"], [128, 256])
        (xb, out), views = share(self.runner, 1, judge.inputs[0], (torch.float32, [64, 128]))
        self.runner.ok("call", args=[tensor_arg(xb)], outputs=[out.to_json()])
        self.assertTrue(torch.equal(views[1], run_reference(judge)[0]))

    def test_null_form_runs_nothing(self):
        loaded = self.runner.ok("load", form="null")
        self.assertEqual((loaded["declared"], loaded["params"]), (None, []))
        (xb, out), views = share(self.runner, 1, torch.ones(4), torch.full((4,), 5.0))
        reply = self.runner.ok("call", args=[tensor_arg(xb), scalar_arg(2.5)], outputs=[out.to_json()])
        self.assertEqual(reply, {"id": reply["id"], "ok": True})
        self.assertTrue(torch.equal(views[1], torch.full((4,), 5.0)))


class ErrorsTest(RunnerTestCase):
    def assertError(self, reply: dict, kind: str, words: str = "") -> dict:
        self.assertFalse(reply["ok"], reply)
        self.assertEqual(reply["error"]["kind"], kind, reply)
        self.assertIn(words, reply["error"]["message"])
        return reply["error"]

    def test_a_missing_library_is_a_load_error(self):
        self.assertError(self.runner.request("load", form="raw", library="/nonexistent/k.so"), "load_error",
                         "not found")

    def test_a_library_that_is_not_a_hone_kernel_is_a_load_error(self):
        libm = "/lib/x86_64-linux-gnu/libm.so.6"
        self.assertError(self.runner.request("load", form="raw", library=libm), "load_error", "not a raw-form")
        self.assertError(self.runner.request("load", form="torch", library=libm, namespace="hone_none"),
                         "load_error", "does not register torch.ops.hone_none.forward")

    def test_a_second_load_is_a_bad_request(self):
        self.load(TASKS / "relu.cpp")
        self.assertError(self.runner.request("load", form="null"), "bad_request", "loaded once")

    def test_requests_before_load_run_the_null_form_and_bad_loads_are_bad_requests(self):
        self.assertTrue(self.runner.request("call", args=[], outputs=[])["ok"])  # the null form, as hone-runner
        self.assertError(self.runner.request("load", form="cuda_graph"), "bad_request", "load.form")
        self.assertError(self.runner.request("load", form="torch", library="/x.so"), "bad_request", "load.namespace")
        self.assertError(self.runner.request("load", form="reference", source=str(TASKS / "relu.py")), "bad_request",
                         "load.seed")
        self.assertError(self.runner.request("load", form="reference", source=str(FIXTURES / "no_model.py"), seed=1),
                         "load_error", "Model")
        self.assertError(self.runner.request("state", outputs=[]), "bad_request")

    def test_a_form_without_its_module_is_unsupported(self):
        if "modelnew" in self.runner.ready["forms"]:
            self.skipTest("this runner has the modelnew form")
        self.assertError(self.runner.request("load", form="modelnew", source="/x.py", seed=1), "unsupported",
                         "modelnew")

    def test_a_raising_forward_is_a_forward_error_and_the_runner_goes_on(self):
        self.load(ADVERSARIAL / "cpu" / "throws.cpp")
        (xb, out), _ = share(self.runner, 1, torch.ones(4, 4), (torch.float32, [4, 4]))
        for _ in range(2):
            self.assertError(self.runner.request("call", args=[tensor_arg(xb)], outputs=[out.to_json()]),
                             "forward_error", "gives up")

    def test_a_raising_reference_forward_is_a_forward_error_with_its_traceback(self):
        self.runner.ok("load", form="reference", source=str(RUNNER_FIXTURES / "raising_model.py"), seed=1)
        (xb, out), _ = share(self.runner, 1, torch.ones(4, 4), (torch.float32, [4, 4]))
        error = self.assertError(self.runner.request("call", args=[tensor_arg(xb)], outputs=[out.to_json()]),
                                 "forward_error", "ValueError: this reference refuses")
        self.assertIn("raising_model.py", error["traceback"])

    def test_a_forward_that_calls_sys_exit_is_a_forward_error_not_an_exit(self):
        self.runner.ok("load", form="reference", source=str(RUNNER_FIXTURES / "exiting_model.py"), seed=1)
        (xb, out), _ = share(self.runner, 1, torch.ones(4, 4), (torch.float32, [4, 4]))
        for _ in range(2):  # the process is still there to answer
            self.assertError(self.runner.request("call", args=[tensor_arg(xb)], outputs=[out.to_json()]),
                             "forward_error", "SystemExit")
        self.assertIsNone(self.runner.process.poll())

    def test_a_crashing_kernel_ends_the_process_which_the_judge_sees(self):
        self.load(RUNNER_FIXTURES / "crash.cpp")
        (xb, out), _ = share(self.runner, 1, torch.ones(4), (torch.float32, [4]))
        with self.assertRaises(RunnerDied) as died:
            self.runner.request("call", args=[tensor_arg(xb)], outputs=[out.to_json()], label="crash")
        self.assertEqual(died.exception.code, -11)
        self.assertIn("hone-runner: call crash", self.runner.stderr)


if __name__ == "__main__":
    unittest.main()
