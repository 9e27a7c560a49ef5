"""The worker's stages in-process, on real torch tensors: comparison and its messages, poisoning
(including glibc's perturbation making stale memory visible), policy validation, the analysis of
GPU activity records (with records shaped like the profiler's), kernel names, percentiles."""
import sys
import unittest

import torch

from worker_client import WORKER_DIR

sys.path.insert(0, WORKER_DIR)

from hone_worker import compare, faults, poison, records, results, signature, timing  # noqa: E402
from hone_worker.devices import Device  # noqa: E402
from hone_worker.errors import BadRequest  # noqa: E402

TOL = compare.Tolerance(1e-4, 1e-4)


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

    def test_structure_and_aliasing(self):
        x = torch.rand(4, 4)
        self.assertIn("has shape [16]", compare.structure_problem([x.view(-1)], [x]))
        self.assertIn("has dtype float64", compare.structure_problem([x.double()], [x]))
        self.assertIn("returned 2 output(s)", compare.structure_problem([x, x], [x]))
        ref = torch.relu(x)
        self.assertIn("shares memory with the argument x", compare.aliasing_problem([x], [ref], [x], ["x"], [x.clone()]))
        self.assertIsNone(compare.aliasing_problem([x], [x], [x], ["x"], [x]))  # the reference aliases too
        self.assertIn("overlaps itself", compare.aliasing_problem([torch.zeros(4).expand(4, 4)], [ref], [x], ["x"], [x]))
        self.assertEqual(compare.stride_differences([ref.t().contiguous().t()], [ref]),
                         ["out has strides [1, 4], the reference's [4, 1]"])


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
        policy = results.Policy.from_params(None)
        self.assertEqual(policy.seeds, [1, 2, 3])
        self.assertTrue(policy.timing)
        self.assertEqual(results.Policy.from_params({"seeds": [4, 5, 6], "atol": None}).seeds, [4, 5, 6])

    def test_rejections(self):
        for params in ({"seeds": "1"}, {"seeds": [1.5]}, {"rtol": "x"}, {"max_reps": 0}, {"min_reps": 9, "max_reps": 3},
                       {"warmup_ms": -1}, {"bogus": 1}):
            with self.assertRaises(BadRequest, msg=params):
                results.Policy.from_params(params)


def kernel(name, stream, start, end):
    return records.Activity(name, stream, start, end)


class ActivityAnalysisTest(unittest.TestCase):
    """Records shaped like the profiler's on the H200: stream 7 is the caller's (legacy default)."""

    SPIN = kernel("spin_kernel(long)", 7, 0.0, 400.0)

    def test_joined_work_on_the_caller_stream(self):
        acts = [self.SPIN, kernel("void relu_kernel(float const*, float*, long)", 7, 401.0, 420.0),
                kernel("void at::native::vectorized_elementwise_kernel<4, FillFunctor<float>>", 7, 421.0, 422.0)]
        result = records.analyze_activities(acts, raw_form=True, own_kernels=["relu_kernel"], timed_us=21.0)
        self.assertIsNone(result.escape)
        self.assertEqual(result.kernel_time["own_us"], 19.0)
        self.assertEqual(result.kernel_time["own_share"], 1.0)

    def test_side_stream_that_does_not_wait_for_the_caller(self):
        acts = [self.SPIN, kernel("relu_kernel", 13, 20.0, 60.0), kernel("fill", 7, 401.0, 402.0)]
        result = records.analyze_activities(acts, True, ["relu_kernel"], timed_us=2.0)
        self.assertIn("work escapes the timer", result.escape)
        self.assertIn("started before the caller's stream 7 reached the call", result.escape)

    def test_side_stream_the_caller_does_not_wait_for(self):
        acts = [self.SPIN, kernel("relu_kernel", 13, 401.0, 900.0), kernel("fill", 7, 402.0, 403.0)]
        result = records.analyze_activities(acts, False, ["relu_kernel"], timed_us=3.0)
        self.assertIn("was still running", result.escape)

    def test_raw_form_must_use_the_given_stream(self):
        acts = [self.SPIN, kernel("relu_kernel", 13, 401.0, 420.0), kernel("fill", 7, 421.0, 422.0)]
        result = records.analyze_activities(acts, True, ["relu_kernel"], timed_us=21.0)
        self.assertIn("work escapes the timer", result.escape)
        self.assertIn("relu_kernel (stream 13), not on the caller's current stream 7", result.escape)
        self.assertIn("the hone::Stream forward is given", result.escape)

    def test_torch_form_side_stream_is_rejected_even_when_it_did_not_race(self):
        # The H200 run: a pool-stream kernel ran after the spin and before the marker in the
        # profiled call, so no race showed; it must be rejected all the same.
        acts = [self.SPIN, kernel("relu_side_kernel", 55, 401.0, 420.0), kernel("fill", 7, 421.0, 422.0)]
        result = records.analyze_activities(acts, False, ["relu_side_kernel"], timed_us=21.0)
        self.assertIn("work escapes the timer", result.escape)
        self.assertIn("relu_side_kernel (stream 55), not on the caller's current stream 7", result.escape)
        self.assertIn("at::cuda::getCurrentCUDAStream()", result.escape)

    def test_library_kernels_without_own_names(self):
        acts = [self.SPIN, kernel("void at::native::vectorized_elementwise_kernel<4, clamp_min>", 7, 401.0, 431.0),
                kernel("my_kernel(float*)", 7, 432.0, 442.0), kernel("fill", 7, 443.0, 444.0)]
        result = records.analyze_activities(acts, False, [], timed_us=41.0)
        self.assertAlmostEqual(result.kernel_time["own_share"], 0.25)
        self.assertEqual([k["own"] for k in result.kernel_time["kernels"]], [False, True])

    def test_kernel_base_names(self):
        self.assertEqual(records.kernel_base_name("void ns::relu_kernel<float, 4>(float const*, float*, long)"),
                         "relu_kernel")
        self.assertEqual(records.kernel_base_name("softmax_kernel(float const*, float*, long)"), "softmax_kernel")
        self.assertEqual(records.kernel_base_name("_Z11relu_kernelPKfPfl"), "relu_kernel")
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


class TimingStatisticsTest(unittest.TestCase):
    def test_percentiles_and_spread(self):
        t = timing.Timing([float(v) for v in range(1, 101)], warmup=3, method="host_clock", spot_checks=0, input_sets=2)
        data = t.to_json()
        self.assertAlmostEqual(data["p50_us"], 50.5)
        self.assertAlmostEqual(data["p10_us"], 10.9)
        self.assertAlmostEqual(data["p90_us"], 90.1)
        self.assertEqual((data["min_us"], data["max_us"], data["reps"]), (1.0, 100.0, 100))
        self.assertAlmostEqual(t.spread, (90.1 - 10.9) / 50.5)


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
