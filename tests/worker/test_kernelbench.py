"""KernelBench answers in the real judge (issue 15): the recorder of load_inline calls run as a
candidate-side process, the modelnew form (ModelNew built as KernelBench builds it, parameters
compared with Model's, forward given the inputs only), and the task's __init__ arguments."""
import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

from common import KERNELBENCH, REPO, WorkerTestCase
from worker_client import PYTHON, WORKER_DIR

FILES = REPO / "tests" / "kernelbench"
POLICY = {"timing": False, "records": True}


def record(answer: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=WORKER_DIR)
    done = subprocess.run([PYTHON, "-m", "hone_worker.runner.inline_record", str(answer)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class RecorderTest(unittest.TestCase):
    def test_cpu_answer_records_its_call(self):
        r = record(FILES / "answers" / "relu_inline.py")
        self.assertNotIn("error", r)
        self.assertTrue(r["has_model_new"])
        [call] = r["calls"]
        self.assertEqual(call["name"], "relu_inline")
        self.assertEqual(call["functions"], ["relu_forward"])
        self.assertEqual(call["cuda_sources"], [])
        self.assertIn("torch::Tensor relu_forward", call["cpp_sources"][0])
        self.assertEqual(call["extra_cflags"], [""])

    def test_kernelbench_cuda_answers_record_sources_and_flags(self):
        folder = KERNELBENCH / "answers"
        if not folder.is_dir():
            self.skipTest(f"no KernelBench answers at {folder} (set HONE_KERNELBENCH)")
        r = record(folder / "unit_tests" / "non_default_stream_kernel.py")
        [call] = r["calls"]
        self.assertEqual(call["name"], "fast_matmul")
        self.assertEqual(call["functions"], ["matmul_cuda"])
        self.assertIn("cublasGemmEx", call["cuda_sources"][0])
        r = record(folder / "prompt_examples" / "model_new_ex_add.py")
        self.assertEqual(r["calls"][0]["name"], "elementwise_add")

    def test_triton_answer_without_triton_says_so(self):
        answer = KERNELBENCH / "answers" / "prompt_examples" / "model_new_ex_add_triton.py"
        if not answer.is_file():
            self.skipTest(f"no {answer}")
        try:
            import triton  # noqa: F401, PLC0415
            self.skipTest("Triton is installed here")
        except ImportError:
            pass
        r = record(answer)
        self.assertTrue(r.get("triton_missing"), r)
        self.assertIn("Triton", r["error"])

    def test_an_answer_that_raises_is_reported_not_raised(self):
        r = record(FILES / "relu.py")  # a task, not an answer: imports fine, has no ModelNew
        self.assertFalse(r["has_model_new"])


class ModelNewJudgeTest(WorkerTestCase):
    def check_answer(self, answer: Path, task: Path) -> dict:
        params = {"task": str(task), "device": "cpu", "policy": POLICY,
                  "kernel": {"library": str(answer), "form": "modelnew", "modules": {}}}
        reply = self.worker.call("check", params, 600)
        self.assertIn("result", reply, reply)
        return reply["result"]

    def test_matching_parameters_pass_and_the_verdict_says_how_it_was_built(self):
        r = self.check_answer(FILES / "answers" / "linear_relu_torch.py", FILES / "linear_relu.py")
        self.assertEqual(r["status"], "correct", r.get("reason"))
        self.assertEqual(r["answer"]["parameters"], "match")
        self.assertIn("seeding every generator with 42", r["answer"]["initialised"])
        self.assertIn("library_ops", self.flag_ids(r), "plain PyTorch in ModelNew.forward is flagged")

    def test_parameters_that_differ_are_named_in_the_reason(self):
        r = self.check_answer(FILES / "answers" / "linear_relu_reseeded.py", FILES / "linear_relu.py")
        self.assertEqual(r["status"], "incorrect")
        self.assertIn("ModelNew's parameters do not match Model's", r["reason"])
        self.assertIn("lin.weight differs", r["answer"]["parameters"])

    def test_an_answer_without_model_new_is_a_kernel_error(self):
        params = {"task": str(FILES / "relu.py"), "device": "cpu", "policy": POLICY,
                  "kernel": {"library": str(FILES / "relu.py"), "form": "modelnew", "modules": {}}}
        reply = self.worker.call("check", params, 600)
        self.assertEqual(reply.get("error", {}).get("code"), "kernel_error", reply)
        self.assertIn("defines no class ModelNew", reply["error"]["message"])

    def test_task_info_lists_the_init_arguments(self):
        reply = self.worker.call("task_init", {"task": str(FILES / "linear_relu.py")}, 120)
        init = reply["result"]["init"]
        self.assertEqual([(a["name"], a["kind"], a["value"]) for a in init],
                         [("features", "int", 16), ("scale", "float", 2.0), ("use_bias", "bool", True)])
        self.assertEqual(init[0]["cpp"], "hone::task::features")


if __name__ == "__main__":
    unittest.main()
