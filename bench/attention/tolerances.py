"""How far a float32-accumulating attention kernel lands from each bf16 eager reference of
tasks/attention/, and whether each task's HONE_ATOL / HONE_RTOL rejects deliberately wrong
variants. Runs on the CPU (torch 1.13 or later) at shapes small enough for a laptop:

    /usr/bin/python3 bench/attention/tolerances.py [--seq 256,1024] [--seeds 3]
    /usr/bin/python3 bench/attention/tolerances.py --twins --seeds 300   # the CPU twins, as CI checks them

For each variant and shape it prints the largest error of the kernel's arithmetic (emulated in
torch by variants.flash_emulation) against the reference, as a share of the task's tolerance
(`worst`: max |got - ref| / (atol + rtol |ref|); 1.0 is the limit), the atol that would be needed at
the task's rtol, and the same share for each wrong variant, which must exceed 1. Exit status 1 when
an honest kernel exceeds half the tolerance or a wrong one passes."""
import argparse
import os
import sys

import torch

import variants as V


def tolerance_share(got: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float) -> float:
    g, r = got.double(), ref.double()
    return float(((g - r).abs() / (atol + rtol * r.abs())).max())


def needed_atol(got: torch.Tensor, ref: torch.Tensor, rtol: float) -> float:
    g, r = got.double(), ref.double()
    return max(float(((g - r).abs() - rtol * r.abs()).max()), 0.0)


def task_tolerances(task, name: str):
    """The task's HONE_ATOL / HONE_RTOL, else hone's defaults by dtype (float32 1e-4, bf16 1e-2)."""
    atol = getattr(task, "HONE_ATOL", None) or (1e-4 if name.endswith("fp32") else 1e-2)
    return atol, getattr(task, "HONE_RTOL", None) or atol


def measure(name: str, seq: int, seeds: int) -> bool:
    task = V.load_task(name)
    task.seq = seq
    task.batch = 1
    task.heads = min(task.heads, 8)
    if hasattr(task, "window"):
        task.window = min(task.window, seq // 4)
    if hasattr(task, "prefix"):
        task.prefix = min(task.prefix, seq // 4)
    atol, rtol = task_tolerances(task, name)
    model = task.Model(*task.get_init_inputs())
    heads = task.heads
    var = V.variant(name, task, heads)
    honest, needed, wrong = 0.0, 0.0, {}
    for seed in range(1, seeds + 1):
        torch.manual_seed(seed)
        q, k, v = task.get_inputs()
        with torch.no_grad():
            ref = model(q, k, v)
            got = V.flash_emulation(q, k, v, var.score_mod, var.mask_mod)
            honest = max(honest, tolerance_share(got, ref, atol, rtol))
            needed = max(needed, needed_atol(got, ref, rtol))
            for label, score_mod, mask_mod in var.wrong:
                bad = V.flash_emulation(q, k, v, score_mod, mask_mod)
                wrong[label] = min(wrong.get(label, float("inf")), tolerance_share(bad, ref, atol, rtol))
    shape = f"{task.batch}x{heads}x{seq}x{task.head_dim}"
    ok = honest <= 0.5 and all(w > 1.0 for w in wrong.values())
    print(f"{name:18s} {shape:16s} atol={atol:g} rtol={rtol:g}  honest kernel: worst {honest:.3f} of the tolerance "
          f"(atol needed at rtol={rtol:g}: {needed:.2e})  {'ok' if ok else 'FAIL'}")
    for label, share in wrong.items():
        print(f"{'':18s}   wrong, {label}: worst {share:.1f}x the tolerance -> {'rejected' if share > 1 else 'PASSES'}")
    return ok


def measure_twin(name: str, seeds: int) -> bool:
    """The CPU twin (tasks/attention/cpu/<name>.py) at its own shape against its CPU kernel's
    arithmetic (float32 throughout, one tile: tasks/attention/cpu/attention_cpu.h) over `seeds`
    random input sets: a check draws several, so the tail over many sets is what must fit."""
    task = V.load_task(name, os.path.join(V.TASKS, "cpu"))
    atol, rtol = task_tolerances(task, name)
    model = task.Model(*task.get_init_inputs())
    var = V.variant(name, task, task.heads)
    shares = []
    for seed in range(1, seeds + 1):
        torch.manual_seed(seed)
        q, k, v = task.get_inputs()
        with torch.no_grad():
            got = V.flash_emulation(q, k, v, var.score_mod, var.mask_mod, block_n=k.shape[-2], p_dtype=torch.float32)
            shares.append(tolerance_share(got, model(q, k, v), atol, rtol))
    shares.sort()
    ok = shares[-1] <= 0.75
    print(f"{name:18s} twin {'x'.join(map(str, q.shape))} atol={atol:g} rtol={rtol:g}  {seeds} input sets: worst "
          f"{shares[-1]:.3f} of the tolerance (median set {shares[len(shares) // 2]:.3f})  {'ok' if ok else 'FAIL'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seq", default="256,1024", help="sequence lengths, comma-separated")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--variants", default=",".join(V.NAMES))
    parser.add_argument("--twins", action="store_true", help="the CPU twins at their shapes, many input sets")
    args = parser.parse_args()
    torch.set_num_threads(max(torch.get_num_threads(), 1))
    ok = True
    if args.twins:
        for name in args.variants.split(","):
            ok &= measure_twin(name, args.seeds)
        return 0 if ok else 1
    for seq in (int(s) for s in args.seq.split(",")):
        for name in args.variants.split(","):
            ok &= measure(name, seq, args.seeds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
