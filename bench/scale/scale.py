"""bench/scale: verified candidates per hour, the number issue 19 is about. `hone bench` checks N
fresh copies of a kernel (each copy a new candidate: a unique comment changes its hash, so every
copy is built and verified) against their task, and the rate is N / wall time x 3600:
  1. one GPU (--gpus 1) against the pool of every GPU present (--gpus all); on a machine without a
     GPU, CPU judges named as GPUs stand in ($HONE_FAKE_GPUS=K, --device cpu), K = --fake;
  2. with --slurm, the Slurm executor on the cluster SLURM_CONF names (scripts/slurm-local.sh's
     one node here) against the local executor, and Slurm's overhead per check.
Builds are warmed first (one copy of each kernel checked once), so the numbers are verification.

usage: scale.py --hone BUILD/bin/hone [--device cpu|cuda] [--count N] [--fake K] [--slurm] [--json OUT]"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_tasks(folder: str, count: int, ext: str) -> str:
    """count copies of tasks/relu.py, each with its own fresh copy of the kernel beside it."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(ROOT, "tasks", "relu" + ext), encoding="utf-8") as f:
        kernel = f.read()
    for i in range(count):
        shutil.copy(os.path.join(ROOT, "tasks", "relu.py"), os.path.join(folder, f"relu_{i:03d}.py"))
        with open(os.path.join(folder, f"relu_{i:03d}{ext}"), "w", encoding="utf-8") as f:
            f.write(f"// scale bench candidate {i} {random.getrandbits(64):x}\n{kernel}")
    os.chmod(folder, 0o777)
    return folder


def hone_bench(hone: str, folder: str, args, extra, env=None):
    """One `hone bench --json` run; returns (wall seconds, rows, verdicts)."""
    out = os.path.join(folder, "verdicts.jsonl")
    cmd = [hone, "bench", folder, "--device", args.device, "--baselines", "none", "--json", "--out", out, *extra]
    if args.python:
        cmd += ["--python", args.python]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, cwd=folder)
    wall = time.perf_counter() - t
    try:
        rows = json.loads(proc.stdout)["tasks"]
    except (ValueError, KeyError):
        sys.exit(f"hone bench failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr[-3000:]}")
    with open(out, encoding="utf-8") as f:
        verdicts = [json.loads(line) for line in f if line.strip()]
    return wall, rows, verdicts


def summary(label: str, wall: float, rows, verdicts) -> dict:
    correct = sum(1 for r in rows if r["status"] == "correct")
    devices = sorted({f"{v['device'].get('index', '-')}" for v in verdicts})
    jobs = sorted({v["executor"]["job_id"] for v in verdicts if v.get("executor")})
    rate = correct / wall * 3600 if wall > 0 else 0
    line = f"{label:<34} {len(rows):>3} checks {correct:>3} correct {wall:7.1f} s  {rate:7.0f} verified/h  devices {','.join(devices)}"
    if jobs:
        line += f"  jobs {len(jobs)}"
    print(line, flush=True)
    for v in verdicts:
        if v["status"] != "correct":
            print(f"  {v['status']}: {v.get('reason', '')[:240]}", flush=True)
    return {"label": label, "checks": len(rows), "correct": correct, "wall_s": wall, "verified_per_hour": rate,
            "devices": devices, "jobs": jobs}


def gpu_count() -> int:
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hone", required=True)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--python", default="")
    p.add_argument("--count", type=int, default=8, help="candidates per run")
    p.add_argument("--fake", type=int, default=2, help="fake GPUs on the CPU device (HONE_FAKE_GPUS)")
    p.add_argument("--slurm", action="store_true", help="also run through the Slurm executor")
    p.add_argument("--slurm-batch", type=int, default=4)
    p.add_argument("--json", default="")
    args = p.parse_args()
    args.hone = os.path.abspath(args.hone)
    ext = ".cu" if args.device == "cuda" else ".cpp"
    env = dict(os.environ)
    if args.device == "cpu":
        env["HONE_FAKE_GPUS"] = str(args.fake)
    gpus = gpu_count() if args.device == "cuda" else args.fake
    results = []
    with tempfile.TemporaryDirectory(prefix="hone-scale-") as tmp:
        os.chmod(tmp, 0o777)
        warm = make_tasks(os.path.join(tmp, "warm"), 1, ext)
        hone_bench(args.hone, warm, args, ["--gpus", "1"], env)  # the worker's first start, the glue
        runs = [("1 GPU (--gpus 1)", ["--gpus", "1"])]
        if gpus > 1:
            runs.append((f"{gpus} {'GPUs' if args.device == 'cuda' else 'fake GPUs'} (--gpus all)", ["--gpus", "all"]))
        for label, extra in runs:
            folder = make_tasks(os.path.join(tmp, f"run{len(results)}"), args.count, ext)
            results.append(summary(label, *hone_bench(args.hone, folder, args, extra, env)))
        if len(results) > 1 and results[0]["wall_s"] > 0:
            print(f"scaling: {results[0]['wall_s'] / results[1]['wall_s']:.2f}x with {gpus} "
                  f"{'GPUs' if args.device == 'cuda' else 'fake GPUs on ' + str(os.cpu_count()) + ' cores'}")
        if args.slurm:
            local_env = dict(env)
            local_env.pop("HONE_FAKE_GPUS", None)
            folder = make_tasks(os.path.join(tmp, "local"), args.count, ext)
            local = summary("local executor (1 judge)", *hone_bench(args.hone, folder, args, ["--gpus", "1"], local_env))
            folder = make_tasks(os.path.join(tmp, "slurm"), args.count, ext)
            slurm = summary(f"slurm executor (batches of {args.slurm_batch})",
                            *hone_bench(args.hone, folder, args,
                                        ["--executor", "slurm", "--slurm-batch", str(args.slurm_batch)], local_env))
            overhead = (slurm["wall_s"] - local["wall_s"]) / max(args.count, 1)
            print(f"slurm overhead per check: {overhead:+.2f} s ({slurm['wall_s']:.1f} s vs {local['wall_s']:.1f} s "
                  f"for {args.count} checks, {len(slurm['jobs'])} jobs)")
            results += [local, slurm, {"label": "slurm overhead per check", "seconds": overhead}]
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0 if all(r.get("correct", 1) == r.get("checks", 1) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
