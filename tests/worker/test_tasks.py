"""Task loading and signatures through the real worker: hone's examples, unmodified KernelBench
files (shapes on the meta device), scalars, dotted parameter names, several outputs, and the
errors for broken tasks."""
import unittest

from common import FIXTURES, KERNELBENCH, TASKS, WorkerTestCase


class TaskInfoTest(WorkerTestCase):
    def info(self, task, device="cpu", **extra):
        return self.worker.result("task_info", dict({"task": str(task), "device": device}, **extra))

    def test_examples_have_the_documented_signatures(self):
        expected = {
            "relu": ("torch::Tensor forward(torch::Tensor x)",
                     "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream)"),
            "layernorm": ("torch::Tensor forward(torch::Tensor x, torch::Tensor ln_weight, torch::Tensor ln_bias)",
                          "void forward(hone::In<float> x, hone::In<float> ln_weight, hone::In<float> ln_bias, "
                          "hone::Out<float> out, hone::Stream stream)"),
            "matmul": ("torch::Tensor forward(torch::Tensor A, torch::Tensor B)",
                       "void forward(hone::In<float> A, hone::In<float> B, hone::Out<float> out, hone::Stream stream)"),
            "gemm_bias_relu": ("torch::Tensor forward(torch::Tensor x, torch::Tensor linear_weight, "
                               "torch::Tensor linear_bias)",
                               "void forward(hone::In<float> x, hone::In<float> linear_weight, "
                               "hone::In<float> linear_bias, hone::Out<float> out, hone::Stream stream)"),
        }
        for name, (torch_decl, raw_decl) in expected.items():
            info = self.info(TASKS / f"{name}.py")
            self.assertEqual(info["torch"], torch_decl)
            self.assertEqual(info["raw"], raw_decl)
            self.assertEqual(info["name"], name)
            self.assertEqual(len(info["task_hash"]), 64)
            self.assertFalse(info["variability"]["weak"], name)

    def test_shapes_dtypes_and_bytes(self):
        info = self.info(TASKS / "gemm_bias_relu.py")
        self.assertEqual(info["inputs"], [{"name": "x", "kind": "tensor", "dtype": "float32", "shape": [64, 256]}])
        self.assertEqual([p["shape"] for p in info["params"]], [[128, 256], [128]])
        self.assertEqual(info["outputs"][0]["shape"], [64, 128])
        self.assertEqual(info["input_bytes"], 4 * (64 * 256 + 128 * 256 + 128))
        self.assertEqual(info["output_bytes"], 4 * 64 * 128)
        self.assertEqual(info["tolerance"], {"atol": 1e-4, "rtol": 1e-4})

    def test_scalars_and_dotted_parameter_names(self):
        info = self.info(FIXTURES / "scalars.py")
        self.assertEqual([(i["name"], i["kind"]) for i in info["inputs"]],
                         [("x", "tensor"), ("scale", "float"), ("repeat", "int"), ("flag", "bool")])
        # state_dict() order: the module's own parameters and buffers, then its children's.
        self.assertEqual([p["name"] for p in info["params"]], ["offset", "layers_0_weight", "layers_0_bias"])
        self.assertIn("double scale, int64_t repeat, bool flag, hone::In<float> offset, hone::In<float> layers_0_weight",
                      info["raw"])
        self.assertIn("torch::Tensor x, double scale, int64_t repeat, bool flag, torch::Tensor offset", info["torch"])

    def test_two_outputs_and_sixteen_bit_types(self):
        info = self.info(FIXTURES / "two_outputs.py")
        self.assertEqual([(o["name"], o["dtype"]) for o in info["outputs"]], [("out0", "float32"), ("out1", "int64")])
        self.assertTrue(info["torch"].startswith("std::tuple<torch::Tensor, torch::Tensor> forward("))
        self.assertIn("hone::Out<float> out0, hone::Out<int64_t> out1", info["raw"])
        half = self.info(FIXTURES / "half_precision.py")
        self.assertIn("hone::In<hone::f16> x", half["raw"])
        self.assertIn("hone::In<__half> x", self.info(FIXTURES / "half_precision.py", language="cuda")["raw"])
        self.assertEqual(half["tolerance"], {"atol": 1e-2, "rtol": 1e-2})

    def test_weak_task_is_recognised(self):
        info = self.info(TASKS.parent / "tests" / "adversarial" / "tasks" / "weak_softmax.py")
        self.assertTrue(info["variability"]["weak"])
        self.assertLess(info["variability"]["max_abs_diff_across_seeds"], 1e-2)
        self.assertEqual(info["tolerance"], {"atol": 1e-2, "rtol": 1e-2})

    def test_unmodified_kernelbench_tasks_on_the_meta_device(self):
        cases = {
            "level1/19_ReLU.py": ([4096, 393216], [4096, 393216]),
            "level1/1_Square_matrix_multiplication_.py": ([2048 * 2, 2048 * 2], [2048 * 2, 2048 * 2]),
            "level1/23_Softmax.py": ([4096, 393216], [4096, 393216]),
        }
        for relative, (input_shape, output_shape) in cases.items():
            path = KERNELBENCH / relative
            if not path.exists():
                self.skipTest(f"KernelBench tasks not found at {KERNELBENCH}")
            info = self.info(path, device="meta")
            self.assertEqual(info["inputs"][0]["shape"], input_shape, relative)
            self.assertEqual(info["outputs"][0]["shape"], output_shape, relative)
            self.assertIsNone(info["variability"])

    def test_kernelbench_task_with_weights_on_the_meta_device(self):
        path = KERNELBENCH / "level2" / "1_Conv2D_ReLU_BiasAdd.py"
        if not path.exists():
            self.skipTest(f"{path} not found")
        info = self.info(path, device="meta")
        self.assertEqual([p["name"] for p in info["params"]], ["bias", "conv_weight", "conv_bias"])
        self.assertEqual(len(info["outputs"][0]["shape"]), 4)


class TaskErrorTest(WorkerTestCase):
    def error(self, task, device="cpu"):
        reply = self.worker.call("task_info", {"task": str(task), "device": device})
        self.assertIn("error", reply, reply)
        return reply["error"]

    def test_missing_model(self):
        error = self.error(FIXTURES / "no_model.py")
        self.assertEqual(error["code"], "task_error")
        self.assertIn("no Model", error["message"])
        self.assertIn("no_model.py", error["message"])

    def test_get_inputs_raising(self):
        error = self.error(FIXTURES / "inputs_raise.py")
        self.assertEqual(error["code"], "task_error")
        self.assertIn("get_inputs() raised ValueError: no inputs today", error["message"])
        self.assertIn("inputs_raise.py", error["traceback"])

    def test_syntax_error_names_file_and_line(self):
        error = self.error(FIXTURES / "syntax_error.py")
        self.assertEqual(error["code"], "task_error")
        self.assertIn("SyntaxError", error["message"])
        self.assertIn("syntax_error.py", error["message"])
        self.assertIn('line 4', error["traceback"])

    def test_non_tensor_output(self):
        error = self.error(FIXTURES / "non_tensor_output.py")
        self.assertEqual(error["code"], "task_error")
        self.assertIn("output 0 is a str", error["message"])

    def test_nondeterministic_reference(self):
        error = self.error(FIXTURES / "dropout.py")
        self.assertEqual(error["code"], "task_error")
        self.assertIn("the reference is not deterministic", error["message"])
        self.assertIn("dropout", error["message"])

    def test_missing_file(self):
        error = self.error(FIXTURES / "does_not_exist.py")
        self.assertEqual(error["code"], "task_error")
        self.assertIn("task file not found", error["message"])

    def test_worker_survives_task_errors(self):
        self.error(FIXTURES / "inputs_raise.py")
        self.assertEqual(self.worker.result("task_info", {"task": str(TASKS / "relu.py"), "device": "cpu"})["name"],
                         "relu")


if __name__ == "__main__":
    unittest.main()
