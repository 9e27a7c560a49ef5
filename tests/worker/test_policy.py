"""Each point of the correctness policy, through the real worker and real kernels built with g++
(or hone build): order of the first trial, poisoning, read-only inputs and parameters, structure,
tolerances, NaN, determinism, fresh inputs in the same buffers, signatures, flags."""
import shutil
import tempfile
import unittest
from pathlib import Path

from common import ADVERSARIAL, FIXTURES, TASKS, WorkerTestCase
from kernel_build import build

CPU = ADVERSARIAL / "cpu"
NO_TIMING = {"timing": False}


class CorrectnessPolicyTest(WorkerTestCase):
    def test_candidate_runs_before_the_reference_on_the_first_trial(self):
        start = len(self.worker.stderr)
        result = self.check_result(FIXTURES / "order_probe.cpp", FIXTURES / "order_probe.py",
                                   policy=dict(NO_TIMING, seeds=[11, 12, 13]))
        self.assertEqual(result["status"], "correct")
        lines = self.worker.stderr[start:]
        # The candidate's own line comes from its process (relayed as it arrives); the judge's
        # note before each call and the reference's line are the judge's, in order.
        value = next(line for line in lines if line.startswith("order-probe candidate")).split()[-1]
        before = lines.index("hone-judge: calling candidate forward (trial 1, seed 11, before the reference)")
        self.assertLess(before, lines.index(f"order-probe reference {value}"), lines)
        # Later trials run the reference first.
        later = next(i for i, line in enumerate(lines) if line.startswith("hone-judge: calling candidate forward (seed 12"))
        references = [i for i, line in enumerate(lines) if line.startswith("order-probe reference")]
        self.assertTrue(any(before < i < later for i in references[1:]), lines)

    def test_unwritten_elements_are_found_by_their_poison(self):
        result = self.check_result(CPU / "partial_write.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        mismatch = result["correctness"]["trials"][0]["mismatch"]
        self.assertEqual(mismatch["kind"], "unwritten")
        self.assertEqual(mismatch["index"], [32, 0])
        self.assertEqual(mismatch["count"], 64 * 4096 // 2)
        self.assertFalse(result["correctness"]["checks"]["unwritten_output"])

    def test_outputs_are_poisoned_before_every_call(self):
        result = self.check_result(CPU / "compute_once.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertIn("second call on the same inputs", result["reason"])
        self.assertIn("never written", result["reason"])
        self.assertFalse(result["correctness"]["checks"]["determinism"])

    def test_integer_outputs_get_a_sentinel(self):
        result = self.check_result(FIXTURES / "two_outputs_partial.cpp", FIXTURES / "two_outputs.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertIn("out1[0] was never written", result["reason"])

    def test_inputs_must_stay_unchanged(self):
        result = self.check_result(CPU / "mutate_input.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertRegex(result["reason"], r"forward modified its input x: \d+ of 262144 elements changed")
        self.assertFalse(result["correctness"]["checks"]["inputs_unchanged"])

    def test_parameters_must_stay_unchanged(self):
        result = self.check_result(FIXTURES / "mutate_param.cpp", TASKS / "layernorm.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertIn("forward modified its parameter ln_weight: 1 of 512 elements changed", result["reason"])

    def test_a_reference_that_updates_its_buffers_does_not_blame_the_candidate(self):
        result = self.check_result(FIXTURES / "batchnorm.cpp", FIXTURES / "batchnorm.py")
        self.assertEqual(result["status"], "correct", result.get("reason"))
        self.assertEqual([p["name"] for p in result["signature"]["params"]][-1], "bn_num_batches_tracked")
        self.assertEqual(result["signature"]["params"][-1]["dtype"], "int64")

    def test_first_mismatch_is_reported_with_index_and_values(self):
        result = self.check_result(CPU / "low_precision.cpp", TASKS / "matmul.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertRegex(result["reason"], r"^out\[\d+,\d+\]: got -?[\d.e+-]+, expected -?[\d.e+-]+; \d+ of 24576 "
                                           r"elements out of tolerance \(atol=0.0001, rtol=0.0001\) \(trial 1, seed 1\)$")
        trial = result["correctness"]["trials"][0]
        self.assertFalse(trial["passed"])
        self.assertGreater(trial["max_abs_error"], 1e-3)

    def test_tolerance_comes_from_the_request(self):
        result = self.check_result(CPU / "low_precision.cpp", TASKS / "matmul.py",
                                   policy={"timing": False, "atol": 0.5, "rtol": 0.05})
        self.assertEqual(result["status"], "correct", result.get("reason"))
        self.assertEqual((result["correctness"]["atol"], result["correctness"]["rtol"]), (0.5, 0.05))

    def test_half_precision_gets_the_fp16_tolerance(self):
        result = self.check_result(FIXTURES / "half_precision.cpp", FIXTURES / "half_precision.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "correct", result.get("reason"))
        self.assertEqual(result["correctness"]["atol"], 1e-2)

    def test_nan_where_the_reference_has_none(self):
        result = self.check_result(CPU / "nan_output.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertIn("got nan", result["reason"])
        self.assertFalse(result["correctness"]["checks"]["no_nan_inf"])

    def test_new_contents_in_the_same_buffers_need_a_new_answer(self):
        result = self.check_result(CPU / "cache_by_pointer.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertIn("new input contents were written into the same buffers", result["reason"])
        self.assertFalse(result["correctness"]["checks"]["fresh_inputs"])

    def test_an_exception_is_a_runtime_error_with_its_message(self):
        result = self.check_result(CPU / "throws.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "runtime_error")
        self.assertEqual(result["reason"], "forward failed: relu: this kernel gives up (trial 1, seed 1)")
        self.assertFalse(result["restart_required"])

    def test_a_failed_allocation_is_out_of_memory(self):
        result = self.check_result(FIXTURES / "huge_allocation.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "runtime_error")
        self.assertIn("out of memory in forward: std::bad_alloc", result["reason"])
        # The worker goes on serving after the failure.
        self.assertEqual(self.check_result(TASKS / "relu.cpp", TASKS / "relu.py", policy=NO_TIMING)["status"], "correct")

    def test_scalars_and_parameters_reach_a_raw_kernel(self):
        result = self.check_result(FIXTURES / "scalars.cpp", FIXTURES / "scalars.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "correct", result.get("reason"))

    def test_two_outputs(self):
        result = self.check_result(FIXTURES / "two_outputs.cpp", FIXTURES / "two_outputs.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "correct", result.get("reason"))
        self.assertEqual(len(result["signature"]["outputs"]), 2)

    def test_every_named_check_passes_for_an_honest_kernel(self):
        result = self.check_result(TASKS / "relu.cpp", TASKS / "relu.py")
        self.assertEqual(result["status"], "correct")
        checks = result["correctness"]["checks"]
        for name in ("inputs_unchanged", "output_structure", "tolerance", "unwritten_output", "no_nan_inf",
                     "determinism", "fresh_inputs", "timed_calls_verified"):
            self.assertTrue(checks.get(name), name)
        self.assertEqual([t["seed"] for t in result["correctness"]["trials"]], [1, 2, 3])
        self.assertFalse(result["restart_required"])

    def test_more_seeds(self):
        result = self.check_result(TASKS / "softmax.cpp", TASKS / "softmax.py",
                                   policy={"timing": False, "seeds": [11, 12, 13, 14, 15]})
        self.assertEqual([t["seed"] for t in result["correctness"]["trials"]], [11, 12, 13, 14, 15])


class TorchFormPolicyTest(WorkerTestCase):
    def test_strides_that_differ_are_flagged(self):
        result = self.check_result(FIXTURES / "transposed_output_torch.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "correct", result.get("reason"))
        self.assertIn("strides_differ", self.flag_ids(result))

    def test_returning_an_input_is_caught_even_when_values_match(self):
        result = self.check_result(CPU / "return_input_torch.cpp", ADVERSARIAL / "tasks" / "relu_positive.py",
                                   policy=NO_TIMING)
        self.assertEqual(result["status"], "incorrect")
        self.assertFalse(result["correctness"]["checks"]["no_aliasing"])

    def test_library_ops_are_flagged_by_name(self):
        result = self.check_result(CPU / "library_op_torch.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "correct")
        message = next(f["message"] for f in result["flags"] if f["id"] == "library_ops")
        self.assertIn("aten::relu x1", message)
        self.assertNotIn("clamp_min", message)  # relu's own callees are not listed separately

    def test_an_honest_torch_kernel_has_no_library_flag(self):
        result = self.check_result(TASKS / "relu_torch.cpp", TASKS / "relu.py", policy=NO_TIMING)
        self.assertEqual(result["status"], "correct")
        self.assertNotIn("library_ops", self.flag_ids(result))


class SignatureTest(WorkerTestCase):
    def kernel_error(self, kernel, task):
        reply = self.check(kernel, task, policy=NO_TIMING)
        self.assertIn("error", reply, reply)
        self.assertEqual(reply["error"]["code"], "kernel_error")
        return reply["error"]["message"]

    def test_dtype_mismatch_names_the_argument(self):
        message = self.kernel_error(FIXTURES / "wrong_dtype_raw.cpp", TASKS / "relu.py")
        self.assertTrue(message.startswith("argument 1 (x): kernel takes float64, task gives float32; expected: "
                                           "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream)"),
                        message)

    def test_argument_count_mismatch(self):
        message = self.kernel_error(FIXTURES / "too_many_args.cpp", TASKS / "relu.py")
        self.assertIn("forward takes 2 arguments and 1 output (in:float32,in:float32,out:float32,stream), "
                      "the task passes 1 input + 0 params and has 1 output", message)

    def test_torch_schema_mismatch(self):
        message = self.kernel_error(FIXTURES / "wrong_arity_torch.cpp", TASKS / "relu.py")
        self.assertIn("forward takes 2 arguments (2 tensors), the task has 1 input + 0 params; "
                      "expected: torch::Tensor forward(torch::Tensor x)", message)

    def test_a_library_that_is_not_a_kernel(self):
        reply = self.worker.call("check", {"task": str(TASKS / "relu.py"), "device": "cpu",
                                           "kernel": {"library": _libm(), "form": "raw"}})
        self.assertEqual(reply["error"]["code"], "kernel_error")
        self.assertIn("is not a raw-form hone kernel", reply["error"]["message"])

    def test_a_missing_library(self):
        reply = self.worker.call("check", {"task": str(TASKS / "relu.py"), "device": "cpu",
                                           "kernel": {"library": "/nonexistent/k.so", "form": "raw"}})
        self.assertEqual(reply["error"]["code"], "kernel_error")
        self.assertIn("kernel library not found: /nonexistent/k.so", reply["error"]["message"])

    def test_a_wrong_torch_namespace(self):
        built = build(TASKS / "relu_torch.cpp")
        params = dict(built.kernel_params(), namespace="hone_not_this_one")
        reply = self.worker.call("check", {"task": str(TASKS / "relu.py"), "device": "cpu", "kernel": params})
        self.assertEqual(reply["error"]["code"], "kernel_error")
        self.assertIn("does not register torch.ops.hone_not_this_one.forward", reply["error"]["message"])

    def test_new_contents_at_a_known_path_are_loaded(self):
        folder = Path(tempfile.mkdtemp(prefix="hone-worker-test-"))
        try:
            path = folder / "kernel.so"
            shutil.copyfile(build(TASKS / "relu.cpp").library, path)
            kernel = {"library": str(path), "form": "raw"}
            params = {"task": str(TASKS / "relu.py"), "device": "cpu", "kernel": kernel, "policy": NO_TIMING}
            self.assertEqual(self.worker.result("check", params)["status"], "correct")
            shutil.copyfile(build(CPU / "nan_output.cpp").library, path)
            self.assertEqual(self.worker.result("check", params)["status"], "incorrect")
        finally:
            shutil.rmtree(folder)


def _libm() -> str:
    for candidate in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6"):
        if Path(candidate).exists():
            return candidate
    raise unittest.SkipTest("libm.so.6 not found")


if __name__ == "__main__":
    unittest.main()
