"""A KernelBench-style evaluation of one torch-form kernel, run as a fresh process: import torch,
build the kernel with torch.utils.cpp_extension.load_inline, check it against the task's Model on
a few seeds, then time it with a fixed number of trials. The baseline that bench/check_latency
compares `hone check` against. Prints one JSON object: wall seconds per stage and in total.

usage: kernelbench_style_eval.py TASK.py KERNEL_SOURCE DEVICE(cpu|cuda) BUILD_DIR"""
import importlib.util
import json
import sys
import time

T0 = time.perf_counter()
import torch  # noqa: E402
from torch.utils.cpp_extension import load_inline  # noqa: E402

CORRECTNESS_TRIALS = 5
PERF_TRIALS = 100


def main() -> None:
    task_path, kernel_path, device, build_dir = sys.argv[1:5]
    stages = {"import_torch": time.perf_counter() - T0}
    spec = importlib.util.spec_from_file_location("task", task_path)
    task = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(task)

    t = time.perf_counter()
    with open(kernel_path, encoding="utf-8") as f:
        source = f.read()
    declaration = "torch::Tensor forward(torch::Tensor x);"
    sources = {"cuda_sources": source} if device == "cuda" else {"cpp_sources": [declaration, source]}
    if device == "cuda":
        sources["cpp_sources"] = declaration
    module = load_inline(name="relu_" + str(abs(hash(build_dir))), functions=["forward"],
                         build_directory=build_dir, verbose=False, **sources)
    stages["load_inline"] = time.perf_counter() - t

    t = time.perf_counter()
    dev = torch.device(device)
    model = task.Model(*task.get_init_inputs()).to(dev)
    for trial in range(CORRECTNESS_TRIALS):
        torch.manual_seed(trial)
        inputs = [x.to(dev) for x in task.get_inputs()]
        expected = model(*inputs)
        got = module.forward(*inputs)
        if device == "cuda":
            torch.cuda.synchronize()
        if not torch.allclose(got, expected, atol=1e-2, rtol=1e-2):
            raise SystemExit(f"incorrect on trial {trial}")
    stages["correctness"] = time.perf_counter() - t

    t = time.perf_counter()
    inputs = [x.to(dev) for x in task.get_inputs()]
    times_ms = []
    for _ in range(PERF_TRIALS):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            module.forward(*inputs)
            end.record()
            torch.cuda.synchronize()
            times_ms.append(start.elapsed_time(end))
        else:
            c = time.perf_counter()
            module.forward(*inputs)
            times_ms.append((time.perf_counter() - c) * 1e3)
    stages["timing"] = time.perf_counter() - t
    times_ms.sort()
    print(json.dumps({"stages_s": stages, "total_s": time.perf_counter() - T0,
                      "p50_us": times_ms[len(times_ms) // 2] * 1e3}))


if __name__ == "__main__":
    main()
