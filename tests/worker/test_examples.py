"""hone's example tasks (tasks/): each has a CUDA and a CPU kernel, the CPU kernels pass through
the real worker (in test_adversarial's example_ cases), every value a tunable kernel declares
gives a correct kernel, and every raw-form CUDA source here compiles with the real nvcc (running
them needs the GPU: scripts/gpu/worker.sh)."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from common import ADVERSARIAL, TASKS, WorkerTestCase
from kernel_build import INCLUDE, form_of

TUNE = re.compile(r"^(?:#define\s+(\w+)\s+(\S+)|constexpr\s+int\s+(\w+)\s*=\s*([^;]+);)\s*//\s*hone:\s*tune\s+(\w+)=(\S+)")
NVCC = os.environ.get("HONE_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def tune_knobs(path: Path):
    """(line number, name, current value, [values]) of each `// hone: tune NAME=v1,v2` line."""
    knobs = []
    for number, line in enumerate(path.read_text().splitlines()):
        if "hone: tune" not in line:
            continue
        match = TUNE.match(line)
        if not match:
            raise AssertionError(f"{path}:{number + 1}: malformed tune line: {line}")
        name, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4).strip())
        knobs.append((number, name, value, match.group(5), match.group(6).split(",")))
    return knobs


class ExampleLayoutTest(unittest.TestCase):
    def test_every_task_has_a_cuda_and_a_cpu_kernel(self):
        tasks = sorted(TASKS.glob("*.py"))
        self.assertGreaterEqual({t.stem for t in tasks},
                                {"relu", "softmax", "layernorm", "matmul", "gemm_bias_relu", "tune_transpose"})
        for task in tasks:
            for ext in (".cu", ".cpp"):
                kernel = task.with_suffix(ext)
                self.assertTrue(kernel.is_file(), kernel)
                self.assertEqual(form_of(kernel), "raw", kernel)

    def test_torch_form_examples_in_both_languages(self):
        for name in ("relu_torch.cu", "relu_torch.cpp"):
            self.assertEqual(form_of(TASKS / name), "torch")
            self.assertIn("// hone: task=relu.py", (TASKS / name).read_text())

    def test_tunable_kernels_declare_their_knobs(self):
        for name in ("tune_transpose.cu", "tune_transpose.cpp"):
            knobs = tune_knobs(TASKS / name)
            self.assertTrue(knobs, name)
            for _, name_in_code, value, name_in_comment, values in knobs:
                self.assertEqual(name_in_code, name_in_comment)
                self.assertIn(value, values)
                self.assertGreater(len(values), 2)


class TunedVariantsTest(WorkerTestCase):
    def test_every_declared_cpu_value_is_correct(self):
        source = TASKS / "tune_transpose.cpp"
        lines = source.read_text().splitlines()
        folder = Path(tempfile.mkdtemp(prefix="hone-tune-"))
        try:
            for number, name, value, _, values in tune_knobs(source):
                for candidate in values:
                    variant = list(lines)
                    variant[number] = variant[number].replace(f"{name} = {value};", f"{name} = {candidate};")
                    path = folder / f"tune_transpose_{candidate}.cpp"
                    path.write_text("\n".join(variant) + "\n")
                    result = self.check_result(path, TASKS / "tune_transpose.py", policy={"timing": False})
                    self.assertEqual(result["status"], "correct", f"{name}={candidate}: {result.get('reason')}")
        finally:
            shutil.rmtree(folder)


def raw_cuda_sources():
    sources = sorted(TASKS.glob("*.cu")) + sorted((ADVERSARIAL / "cuda").glob("*.cu"))
    return [s for s in sources if form_of(s) == "raw"]


@unittest.skipUnless(os.access(NVCC, os.X_OK), f"nvcc not found ({NVCC})")
class CudaSourcesCompileTest(unittest.TestCase):
    def test_raw_cuda_kernels_compile_for_sm_90(self):
        folder = Path(tempfile.mkdtemp(prefix="hone-nvcc-"))
        try:
            jobs = []
            for source in raw_cuda_sources():
                unit = folder / f"{source.parent.name}_{source.stem}.cu"
                unit.write_text(f'#include "{source}"\n#include "hone/raw_entry.h"\n')
                cmd = [NVCC, "-arch=sm_90", "-std=c++17", "-c", f"-I{INCLUDE}", str(unit), "-o", str(unit) + ".o"]
                jobs.append((source, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
                if len(jobs) % 2 == 0:
                    jobs[-2][1].wait()
            for source, job in jobs:
                output, _ = job.communicate(timeout=600)
                self.assertEqual(job.returncode, 0, f"{source}:\n{output}")
            self.assertGreaterEqual(len(jobs), 15)
        finally:
            shutil.rmtree(folder)

    def test_torch_form_cuda_sources_need_cuda_torch(self):
        torch_sources = [s for s in sorted(TASKS.glob("*.cu")) + sorted((ADVERSARIAL / "cuda").glob("*.cu"))
                         if form_of(s) == "torch"]
        self.assertGreaterEqual(len(torch_sources), 5)
        self.skipTest(f"{len(torch_sources)} torch-form .cu files need torch's CUDA headers (ATen/cuda), absent from "
                      "Debian's libtorch: they are built and run by scripts/gpu/worker.sh")


if __name__ == "__main__":
    unittest.main()
