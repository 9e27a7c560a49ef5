"""Start-to-ready of the python runner: seconds from spawning `python3 -m hone_worker.runner` to its
ready event (torch imported, CUDA context made), beside the time a bare python takes to import torch
on the same machine. Usage: runner_startup.py [--device cpu|cuda:N] [--runs N]; prints one JSON object."""
import argparse
import json
import statistics
import subprocess
import time

from runner_client import PYTHON, RunnerClient


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    ready = []
    for _ in range(options.runs):
        runner = RunnerClient(options.device)
        ready.append(runner.ready_s)
        runner.close()
    bare = []
    for _ in range(options.runs):
        started = time.perf_counter()
        process = subprocess.Popen([PYTHON, "-c", "import sys, torch; sys.stdout.write('.'); sys.stdout.flush()"],
                                   stdout=subprocess.PIPE)
        process.stdout.read(1)
        bare.append(time.perf_counter() - started)
        process.wait()
    print(json.dumps({"device": options.device, "runner_ready_s": ready, "median_ready_s": statistics.median(ready),
                      "import_torch_s": bare, "median_import_torch_s": statistics.median(bare)}))


if __name__ == "__main__":
    main()
