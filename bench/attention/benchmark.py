"""The attention variants of tasks/attention/ on the GPU against what users would pick: eager
PyTorch (the task's reference), torch.nn.functional.scaled_dot_product_attention where the variant
allows it (causal via is_causal, biases via a float attn_mask, masks via a boolean one; the backend
that ran is named), torch.nn.attention.flex_attention compiled with the same score_mod / mask_mod
(variants.py), and hone's starting and tuned kernels (raw form, called through hone's ABI).

Every contender is checked against the eager output at the task's tolerance and timed by one
method: a read of a buffer twice the L2 before each call, then CUDA events around the call,
median of --reps calls, two ways: `call` with the GPU idle before the call (what a caller waits,
launch overhead included) and `device` with the stream held by a spin kernel while the call is
queued (the events then bracket only GPU work). TFLOP/s count the unmasked (query, key) pairs
(4 * head_dim FLOP each); DRAM % counts q, k, v and out once against the measured copy bandwidth.

    python3 bench/attention/benchmark.py --hone build/bin/hone --out OUT [--tuned DIR] [--checks FILE]
        [--specs FILE] [--variants a,b] [--reps 15]

--tuned DIR holds `hone optimize --json` results as <variant>.json; --checks a file of `hone check
--json` lines for tasks/attention/<variant>.cu; --specs `hone specs --measure --json`. Writes
OUT/attention_bench.json and OUT/attention_table.md and prints the table last."""
import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import torch

import hone_raw
import variants as V

DEFAULT_BF16_FLOPS = 775e12  # measured bf16 matmul ceiling of the H200 (docs/gpu-runs.md)
DEFAULT_FP32_FLOPS = 51e12
DEFAULT_DRAM = 4.21e12


def peaks(specs_path):
    """(bf16 FLOP/s, fp32 FLOP/s, DRAM bytes/s, where they come from)."""
    if not specs_path or not os.path.exists(specs_path):
        return DEFAULT_BF16_FLOPS, DEFAULT_FP32_FLOPS, DEFAULT_DRAM, "docs/gpu-runs.md ceilings"
    rows = json.load(open(specs_path))
    row = next((r for r in rows if r.get("local")), rows[0]) if isinstance(rows, list) else rows
    m = row.get("measured_ceilings") or {}
    flops = m.get("matmul_flops_per_s") or {}
    return (flops.get("bf16", DEFAULT_BF16_FLOPS), flops.get("fp32", DEFAULT_FP32_FLOPS),
            m.get("dram_copy_bytes_per_s") or DEFAULT_DRAM, "measured: hone specs --measure")


def within(got, ref, atol, rtol):
    g, r = got.double(), ref.double()
    return bool(torch.isfinite(g).all()) and bool(((g - r).abs() <= atol + rtol * r.abs()).all())


def median_ms(samples):
    return statistics.median(samples) if samples else None


def measure(fn, flush, reps):
    """{call_ms, device_ms, enqueue_us, spin_us} of `fn` (see the module docstring)."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    enqueue = time.perf_counter() - start
    torch.cuda.synchronize()
    spin_s = max(4 * enqueue, 500e-6)
    call, device = [], []
    for held in (False, True):
        for _ in range(reps):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            flush.sum()
            if held:
                torch.cuda._sleep(int(spin_s * 2.0e9))  # cycles at <= 2 GHz: at least spin_s
            else:
                torch.cuda.synchronize()
            e0.record()
            fn()
            e1.record()
            torch.cuda.synchronize()
            (device if held else call).append(e0.elapsed_time(e1))
    return {"call_ms": median_ms(call), "device_ms": median_ms(device), "enqueue_us": enqueue * 1e6,
            "spin_us": spin_s * 1e6}


def sdpa_contender(var, task, q, k, v):
    """(function, label) for scaled_dot_product_attention, or (None, why not)."""
    import torch.nn.functional as F
    if var.sdpa is None:
        return None, "SDPA cannot express this score_mod"
    heads, seq_q, seq_k = q.shape[1], q.shape[-2], k.shape[-2]
    if var.sdpa == "causal":
        mask, label, causal = None, "is_causal=True", True
    elif var.sdpa == "bias":
        bias = V.dense_bias(var, 1, heads, seq_q, seq_k, q.device)
        # Softmax ignores a per-row shift: subtracting the row max keeps the bias entries that
        # matter small enough for bf16 (relative_position's q_idx - kv_idx reaches 2047).
        bias = bias - bias.amax(-1, keepdim=True)
        mask, label, causal = bias.to(q.dtype), "float attn_mask (bias minus its row max)", False
    else:
        b, h, qi, kv = V.index_grids(1, 1, seq_q, seq_k, q.device)
        mask, label, causal = var.mask_mod(b, h, qi, kv), "boolean attn_mask", False
    backend = "?"
    if hasattr(torch, "_fused_sdp_choice"):
        try:
            choice = torch._fused_sdp_choice(q, k, v, mask, 0.0, causal)
            backend = torch.nn.attention.SDPBackend(choice).name
        except Exception as exc:  # noqa: BLE001 - only a label
            backend = f"? ({type(exc).__name__})"
    return (lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)), \
        f"SDPA {label}, backend {backend}"


def flex_contender(var, q, k, v):
    """(function, label, compile seconds) for compiled flex_attention, or (None, why not, 0)."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as exc:
        return None, f"flex_attention unavailable in torch {torch.__version__}: {exc}", 0.0
    compiled = torch.compile(flex_attention)
    block_mask = None
    if var.mask_mod:
        block_mask = create_block_mask(var.mask_mod, None, None, q.shape[-2], k.shape[-2], device=q.device)

    def fn():
        return compiled(q, k, v, score_mod=var.score_mod, block_mask=block_mask)
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return fn, "flex_attention (torch.compile)" + (", block mask" if block_mask is not None else ""), \
        time.perf_counter() - start


def hone_contender(hone, kernel_path, flags, q, k, v):
    report = hone_raw.build(hone, kernel_path, flags)
    out = torch.empty_like(q)
    call = hone_raw.RawKernel(report["compile"]["library"]).bind([q, k, v, out])

    def fn():
        call()
        return out
    regs = ", ".join(f"{x.get('registers')} regs" for x in report["compile"].get("kernels", [])[:1])
    return fn, regs


def tuned_kernel(name, tuned_dir, work):
    """The re-verified best of `hone optimize` for `name`, written beside a copy of the kernel
    header: (path, flags, result) or None."""
    path = os.path.join(tuned_dir or "", name + ".json")
    if not tuned_dir or not os.path.exists(path):
        return None
    result = json.load(open(path))
    best = result.get("best")
    if not best or not best.get("source"):
        return None
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    for header in glob.glob(os.path.join(V.TASKS, "*.cuh")):  # the kernel and its sm90 path
        shutil.copy(header, folder)
    kernel = os.path.join(folder, name + ".cu")
    with open(kernel, "w") as f:
        f.write(best["source"])
    return kernel, best.get("flags") or [], result


def work_of(var, task, q):
    """(FLOPs, compulsory bytes) of one call."""
    batch, heads, seq, dim = q.shape
    if var.mask_mod:
        b, h, qi, kv = V.index_grids(1, 1, seq, seq, q.device)
        pairs = int(var.mask_mod(b, h, qi, kv).sum())
    else:
        pairs = seq * seq
    return 4.0 * dim * batch * heads * pairs, 4 * q.numel() * q.element_size()


def hone_check_note(checks, name):
    """hone check's own times for tasks/attention/<name>.cu, as a note."""
    for v in checks:
        kernel = v.get("kernel")
        if (kernel.get("path", "") if isinstance(kernel, dict) else str(kernel)).endswith(f"{name}.cu"):
            own = (v.get("kernel_time") or {}).get("own_us")
            p50 = (v.get("timing") or {}).get("p50_us")
            return f"hone check: {v.get('status')}, {p50 / 1e3:.3f} ms events" + \
                (f", {own / 1e3:.3f} ms CUPTI" if own else "") if p50 else f"hone check: {v.get('status')}"
    return ""


def contenders_for(name, var, task, model, q, k, v, args, work):
    """[(label, function or None, note)] in table order."""
    rows = [("eager", lambda: model(q, k, v), "the task's reference")]
    fn, label = sdpa_contender(var, task, q, k, v)
    rows.append(("SDPA", fn, label))
    fn, label, seconds = flex_contender(var, q, k, v)
    rows.append(("flex_attention", fn, label + (f", compiled in {seconds:.1f} s" if fn else "")))
    try:
        fn, regs = hone_contender(args.hone, os.path.join(V.TASKS, name + ".cu"), [], q, k, v)
        rows.append(("hone start", fn, f"{regs}; {hone_check_note(args.check_verdicts, name)}"))
    except Exception as exc:  # noqa: BLE001 - reported in the table
        rows.append(("hone start", None, f"build failed: {exc}"))
    tuned = tuned_kernel(name, args.tuned, work)
    if tuned is None:
        rows.append(("hone tuned", None, "no re-verified best from hone optimize"))
    else:
        path, flags, result = tuned
        best = result["best"]
        knobs = [l.split("//")[0].strip() for l in best["source"].splitlines() if "hone: tune" in l]
        note = f"{' '.join(knobs)} {' '.join(flags)}; hone optimize: {best['p50_us'] / 1e3:.3f} ms re-verified, " \
               f"{(best.get('speedup') or {}).get('kernel') or 0:.2f}x the start"
        try:
            fn, regs = hone_contender(args.hone, path, flags, q, k, v)
            rows.append(("hone tuned", fn, f"{regs}; {note}"))
        except Exception as exc:  # noqa: BLE001
            rows.append(("hone tuned", None, f"build failed: {exc}"))
    return rows


def run_variant(name, args, flush, work):
    task = V.load_task(name)
    torch.manual_seed(1)
    with torch.device("cuda"):
        q, k, v = task.get_inputs()
        model = task.Model(*task.get_init_inputs())
    var = V.variant(name, task, task.heads)
    fp32 = q.dtype == torch.float32
    atol = getattr(task, "HONE_ATOL", None) or (1e-4 if fp32 else 1e-2)
    rtol = getattr(task, "HONE_RTOL", None) or atol
    ref = model(q, k, v)
    torch.cuda.synchronize()
    flops, nbytes = work_of(var, task, q)
    peak = args.peak_fp32 if fp32 else args.peak_bf16
    shape = f"{'x'.join(map(str, q.shape))} {str(q.dtype).replace('torch.', '')}"
    rows = []
    for label, fn, note in contenders_for(name, var, task, model, q, k, v, args, work):
        row = {"variant": name, "shape": shape, "contender": label, "note": note, "flops": flops, "bytes": nbytes}
        if fn is not None:
            try:
                row["correct"] = within(fn(), ref, atol, rtol)
                row.update(measure(fn, flush, args.reps))
                seconds = row["device_ms"] / 1e3
                row["tflops"] = flops / seconds / 1e12
                row["peak_pct"] = 100 * flops / seconds / peak
                row["dram_pct"] = 100 * nbytes / seconds / args.peak_dram
            except Exception as exc:  # noqa: BLE001 - reported in the table
                row["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        rows.append(row)
    eager = rows[0].get("device_ms")
    for row in rows:
        if eager and row.get("device_ms"):
            row["vs_eager"] = eager / row["device_ms"]
    del ref, q, k, v
    torch.cuda.empty_cache()
    return rows


def cell(x, fmt):
    return "" if x is None else format(x, fmt)


def table(rows, peak_source):
    lines = [f"Peaks: {peak_source}. device = held-stream events; call = events with the GPU idle before the call; "
             "both after an L2 read flush, medians.", "",
             "| variant | shape | contender | correct | device ms | call ms | x eager | TFLOP/s | % peak | % DRAM | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = {True: "yes", False: "NO"}.get(r.get("correct"), "-")
        note = r.get("error") or r.get("note", "")
        lines.append(f"| {r['variant']} | {r['shape']} | {r['contender']} | {ok} | {cell(r.get('device_ms'), '.3f')} | "
                     f"{cell(r.get('call_ms'), '.3f')} | {cell(r.get('vs_eager'), '.2f')} | {cell(r.get('tflops'), '.1f')} | "
                     f"{cell(r.get('peak_pct'), '.1f')} | {cell(r.get('dram_pct'), '.2f')} | {note.replace('|', '/')} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hone", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tuned")
    parser.add_argument("--checks")
    parser.add_argument("--specs")
    parser.add_argument("--variants", default=",".join(V.NAMES))
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("skipped: no GPU (the attention benchmark needs CUDA)")
        return 0
    args.check_verdicts = [json.loads(l) for l in open(args.checks)] if args.checks and os.path.exists(args.checks) else []
    args.peak_bf16, args.peak_fp32, args.peak_dram, peak_source = peaks(args.specs)
    torch._dynamo.config.cache_size_limit = 64
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4 + 1024, dtype=torch.float32, device="cuda").fill_(1.0)
    rows = []
    with torch.no_grad(), tempfile.TemporaryDirectory() as work:
        for name in args.variants.split(","):
            start = time.perf_counter()
            rows += run_variant(name, args, flush, work)
            print(f"{name}: {time.perf_counter() - start:.1f} s", flush=True)
    os.makedirs(args.out, exist_ok=True)
    text = table(rows, f"{peak_source} (bf16 {args.peak_bf16 / 1e12:.0f}, fp32 {args.peak_fp32 / 1e12:.0f} TFLOP/s, "
                       f"DRAM {args.peak_dram / 1e12:.2f} TB/s)")
    json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "rows": rows},
              open(os.path.join(args.out, "attention_bench.json"), "w"), indent=1)
    open(os.path.join(args.out, "attention_table.md"), "w").write(text + "\n")
    print(text)
    hone_rows = [r for r in rows if r["contender"].startswith("hone")]
    return 0 if hone_rows and all(r.get("correct") for r in hone_rows) else 1


if __name__ == "__main__":
    sys.exit(main())
