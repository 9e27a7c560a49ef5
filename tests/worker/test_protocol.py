"""The judge's protocol over real pipes: hello, errors, progress, stdout hygiene, shutdown."""
import json
import unittest

from common import FIXTURES, TASKS, WorkerTestCase
from kernel_build import build
from worker_client import WorkerClient


class ProtocolTest(WorkerTestCase):
    def test_hello_describes_python_torch_and_devices(self):
        result = self.worker.result("hello")
        self.assertEqual(result["protocol"], 1)
        self.assertTrue(result["torch"])
        self.assertTrue(result["include_paths"])
        self.assertIsInstance(result["cxx11_abi"], bool)
        self.assertIsInstance(result["devices"], list)
        self.assertIn("malloc_perturbation", result)
        self.assertEqual(result["pid"], self.worker.process.pid)
        self.assertTrue(result["candidate_runners"]["python"])

    def test_unknown_method_is_a_bad_request(self):
        reply = self.worker.call("frobnicate")
        self.assertEqual(reply["error"]["code"], "bad_request")
        self.assertIn("frobnicate", reply["error"]["message"])
        self.assertIn("check", reply["error"]["message"])

    def test_malformed_json_gets_an_error_and_the_worker_goes_on(self):
        self.worker.send_raw(b"{not json\n")
        message = self.worker.read_message(60)
        self.assertIsNone(message["id"])
        self.assertEqual(message["error"]["code"], "bad_request")
        self.assertEqual(self.worker.result("hello")["protocol"], 1)

    def test_params_must_be_an_object(self):
        self.worker.send_raw(json.dumps({"id": 99, "method": "task_info", "params": [1, 2]}).encode() + b"\n")
        message = self.worker.read_message(60)
        self.assertEqual(message["id"], 99)
        self.assertEqual(message["error"]["code"], "bad_request")

    def test_bad_policy_fields_are_bad_requests(self):
        built = build(TASKS / "relu.cpp")
        params = {"task": str(TASKS / "relu.py"), "device": "cpu", "kernel": built.kernel_params()}
        for policy, words in (({"seeds": []}, "seeds"), ({"sedes": [1]}, "unknown policy field"),
                              ({"atol": -1}, "atol"), ({"seeds": [1, 1]}, "distinct")):
            reply = self.worker.call("check", dict(params, policy=policy))
            self.assertEqual(reply["error"]["code"], "bad_request", policy)
            self.assertIn(words, reply["error"]["message"])

    def test_unknown_device_and_missing_cuda(self):
        reply = self.worker.call("task_info", {"task": str(TASKS / "relu.py"), "device": "tpu"})
        self.assertEqual(reply["error"]["code"], "bad_request")
        hello = self.worker.result("hello")
        if hello["devices"]:
            self.skipTest("this machine has a CUDA device")
        reply = self.worker.call("task_info", {"task": str(TASKS / "relu.py"), "device": "cuda"})
        self.assertEqual(reply["error"]["code"], "unsupported")
        self.assertIn("no CUDA device", reply["error"]["message"])

    def test_progress_notifications_precede_the_reply(self):
        built = build(TASKS / "relu.cpp")
        reply = self.worker.call("check", {"task": str(TASKS / "relu.py"), "device": "cpu",
                                           "kernel": built.kernel_params(), "policy": {"timing": False}})
        self.assertEqual(reply["result"]["status"], "correct")
        stages = [p["stage"] for p in self.worker.progress]
        self.assertIn("correctness", stages)
        self.assertTrue(any("trial 3/3" in p["message"] for p in self.worker.progress))

    def test_prints_from_tasks_and_kernels_go_to_stderr(self):
        info = self.worker.result("task_info", {"task": str(FIXTURES / "noisy.py"), "device": "cpu"})
        self.assertEqual(info["inputs"][0]["shape"], [8, 8])
        built = build(FIXTURES / "prints.cpp")
        result = self.worker.result("check", {"task": str(TASKS / "relu.py"), "device": "cpu",
                                              "kernel": built.kernel_params(), "policy": {"timing": False}})
        self.assertEqual(result["status"], "correct")
        self.assertTrue(any("forward called" in line for line in self.worker.stderr))
        self.assertTrue(any('"status": "correct"' in line for line in self.worker.stderr))

    def test_nan_values_travel_as_strings(self):
        result = self.check_result(ADVERSARIAL_NAN, TASKS / "relu.py", policy={"timing": False})
        self.assertEqual(result["correctness"]["trials"][0]["mismatch"]["got"], "nan")


ADVERSARIAL_NAN = TASKS.parent / "tests" / "adversarial" / "cpu" / "nan_output.cpp"


class LifecycleTest(unittest.TestCase):
    def test_shutdown_replies_and_exits_zero(self):
        worker = WorkerClient()
        reply = worker.call("shutdown")
        self.assertEqual(reply["result"], {})
        self.assertEqual(worker.process.wait(timeout=60), 0)

    def test_end_of_input_exits_zero(self):
        worker = WorkerClient()
        worker.result("hello")
        worker.process.stdin.close()
        self.assertEqual(worker.process.wait(timeout=60), 0)

    def test_stderr_names_each_candidate_call(self):
        worker = WorkerClient()
        built = build(TASKS / "relu.cpp")
        worker.result("check", {"task": str(TASKS / "relu.py"), "device": "cpu", "kernel": built.kernel_params(),
                                "policy": {"timing": False, "seeds": [7, 8, 9]}})
        worker.close()
        calls = [line for line in worker.stderr if "calling candidate forward" in line]
        self.assertIn("hone-judge: calling candidate forward (trial 1, seed 7, before the reference)", calls)
        self.assertTrue(any("seed 8, second call on the same inputs" in line for line in calls))


if __name__ == "__main__":
    unittest.main()
