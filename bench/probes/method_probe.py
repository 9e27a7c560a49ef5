"""bench/probes/method_probe.py (issue 14, call time within 10% of plain events): which step of
hone's call-time loop reads above plain events in the same process? inprocess_probe found hone's
call p50 1.08-1.86x the plain events measured in the very runner that hone timed in (H100,
2026-12-06), so the gap is not only two processes' host paths.

In one fresh process per case (the python runner's start-up: libhone_cupti loaded before torch,
autograd off), interleaved over --rounds, each variant 300 calls of a Module after warming:
  plain        plain events (bench/probes/plain_events.py, KernelBench's method)
  plain_hflush plain events with hone's flush (hone_flush_l2 through libhone_harness) for torch's sum
  plain_keep   plain events, the result kept alive over the next call and copied to an output
               after the end event, and the input copied from one of two sets before the flush
  plain_hold   plain events, every call's two events kept alive until the last call (as a timed
               loop that reads them at the end must)
  plain_ahead  plain events whose CUDA events were made (recorded once) before the timed calls, as
               hone's _Clock.prepare makes its own: torch makes an event's CUDA event at its first
               record, so plain's end event is made between the call's return and its record
  hone_window  plain_ahead's steps around the call (torch's flush, synchronize), but the window hone's:
               its clock's marks and the candidate's bound call (TimedLoop._call)
  hone_marks   plain_ahead with hone's clock marks alone (model(x) called directly): _Clock.around
               since 2026-12-07 (two _Clock.mark() calls before: 0.5-0.8 us above plain_ahead, H100)
  hone_bound   plain_ahead with the bound call alone (plain_ahead's events)
  hone_sync    plain_ahead with Device.synchronize (torch.cuda.synchronize(index)) alone
  hone_steps   hone's steps around the call (its input sets, hone_flush_l2, Device.synchronize),
               but plain_ahead's window (events made ahead, model(x) called directly)
  hone_calls   TimedLoop._run_calls alone (no warm-up, settling or recording around it)
  hone_waited  the same, the host waiting for each call's end before it queues the result's copy
  hone         hone's TimedLoop (server/worker/hone_worker/runner/timed_calls.py) in call mode
               with two input sets and two output slots, as a check times
  hone_lazy    the same with each event made at its mark (_Clock.prepare skipped: hone before
               2026-12-06's fix)
First answer (H100, 2026-12-06, before the fix): plain_hflush 0.95-0.99x and plain_keep 0.97-1.00x
of plain, hone 1.10-1.39x (one process: not the lottery) -- the events, made inside the windows.
With --beside-context every case runs while another process holds an idle CUDA context on the
GPU, as hone's judge does beside its runners (bench/probes/call_gap_probe.py found a second
resident context adding 1.2-2.6 us to events around a call from C on the H200).
Printed: each variant's p50 per round and its ratio to plain.

  python3 bench/probes/method_probe.py --worker build/share/hone/worker [--rounds 3] [--beside-context] [--json F]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# plain_events imports nothing when loaded (torch inside its functions): the child's preload still
# comes before torch.
from plain_events import context_holder, plain_events_us, warm_calls, warm_clocks  # noqa: E402

CASES = {"relu_2p16": ((64, 1024), "relu"), "relu_2p22": ((4096, 1024), "relu"),
         "relu_scale_256x2048": ((256, 2048), "relu_scale")}
VARIANTS = ("plain", "plain_hflush", "plain_keep", "plain_hold", "plain_ahead", "hone_window", "hone_marks", "hone_bound",
            "hone_sync", "hone_steps", "hone_calls", "hone_waited", "hone", "hone_lazy")
CALLS = 300


def child(case: str, rounds: int, preload: bool) -> int:
    if preload:
        from hone_worker.runner import cupti

        cupti.preload()
    import torch

    torch.set_grad_enabled(False)
    from hone_worker.devices import Device
    from hone_worker.runner import timed_calls
    from hone_worker.runner.forms import Candidate
    from hone_worker.runner.harness import harness

    shape, what = CASES[case]

    class Model(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) * 1.5 if what == "relu_scale" else torch.relu(x)

    class Bound(Candidate):
        form, writes_outputs = "probe", False

        def bind(self, args, outputs):
            values = list(args)
            return lambda: model(*values)

    device = Device("cuda", 0)
    torch.cuda.set_device(0)
    model = Model()
    sets = [[torch.randn(*shape, device="cuda")] for _ in range(2)]
    target = [sets[0][0].clone()]
    slots = [[torch.empty(*shape, device="cuda")] for _ in range(2)]
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush_bytes = 2 * l2
    h = harness()
    hbuf, hsink = timed_calls.flush_buffers(device, flush_bytes, ())
    tflush, tsink = torch.ones(flush_bytes // 4, device="cuda"), torch.zeros((), device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    warm_clocks(tflush)

    def timed_loop():
        schedule = [timed_calls._Entry(k % 2, k % 2, []) for k in range(CALLS)]
        plan = timed_calls.TimePlan("call", target, sets, slots, schedule, 20, 100.0, 0.0, flush_bytes, None, None,
                                    10_000.0)
        return timed_calls.TimedLoop(plan, Bound(), h, device, hbuf, hsink)

    def mixed(marks: bool = False, bound: bool = False, steps: bool = False, sync: bool = False) -> list:
        """plain_ahead with one or more of hone's parts: `marks` its clock's window (_Clock.around,
        events made by _Clock.prepare), `bound` the candidate's bound call (TimedLoop._call), `steps` its steps
        before the window (input sets, hone_flush_l2, Device.synchronize), `sync` only its
        Device.synchronize in plain's steps."""
        loop, times = timed_loop(), []
        made = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(CALLS)]
        for pair in made:
            pair[0].record()
            pair[1].record()
        loop.clock.prepare(2 * CALLS)
        torch.cuda.synchronize()
        forward = (lambda k: loop._call(k % 2, k % 2)[0]) if bound else (lambda k: lambda: model(target[0]))
        for k in range(CALLS):
            if steps:
                loop._apply_inputs(loop.plan.schedule[k])
                loop._flush(evict_code=False)
                loop.device.synchronize()
            else:
                torch_flush()
                loop.device.synchronize() if sync else torch.cuda.synchronize()
            call = forward(k)
            if marks:
                result, (start, end) = loop.clock.around(call)
            else:
                start, end = made[k]
                start.record()
                result = call()
                end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        del result
        return times

    def hone_calls(waited: bool) -> list:
        """TimedLoop._run_calls alone (no warm-up, settling or recording around it); `waited`: the
        host waits for each call's end before it queues the result's copy and the next inputs."""
        loop = timed_loop()
        for entry in loop.plan.schedule:
            loop._call(entry.set, entry.slot)
        if waited:
            stream = torch.cuda.current_stream()
            for key, (forward, keep) in list(loop._bound.items()):
                loop._bound[key] = (forward, lambda result, keep=keep: (stream.synchronize(), keep(result)))
        loop.clock.prepare(2 * CALLS)
        torch.cuda.synchronize()
        marks = loop._run_calls(loop.plan.schedule, held=False)
        torch.cuda.synchronize()
        return [loop.clock.elapsed_us(*m) for m in marks]

    def hone(lazy: bool) -> list:
        loop = timed_loop()
        if lazy:
            loop.clock.prepare = lambda count: None
        return loop.run(lambda event: None)["times_us"]

    def torch_flush() -> None:
        torch.add(tsink, tflush.sum(), out=tsink)

    def hone_flush() -> None:
        h.flush(stream, hbuf.data_ptr(), flush_bytes, hsink.data_ptr(), evict_code=False)

    def plain_variant(flush, keep: bool = False, hold: bool = False) -> list:
        """Plain events around model(x) after `flush`; `keep`: the input copied from one of two sets
        before the flush, the result alive over the next call and copied to an output slot after
        the end event; `hold`: every call's events alive until the last call."""
        x, marks, kept = target[0], [], None
        for k in range(CALLS):
            if keep:
                x.copy_(sets[k % 2][0])
            flush()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            result = model(x)
            end.record()
            if keep:
                slots[k % 2][0].copy_(result)
                kept = result  # noqa: F841 - alive over the next call, as hone's loop keeps it
            end.synchronize()
            marks.append((start, end) if hold else start.elapsed_time(end) * 1000.0)
        return [a.elapsed_time(b) * 1000.0 for a, b in marks] if hold else marks

    ways = {"plain": lambda: plain_events_us(lambda: model(target[0]), tflush, tsink, CALLS),
            "plain_hflush": lambda: plain_variant(hone_flush), "plain_keep": lambda: plain_variant(torch_flush, keep=True),
            "plain_hold": lambda: plain_variant(torch_flush, hold=True),
            "plain_ahead": lambda: plain_events_us(lambda: model(target[0]), tflush, tsink, CALLS, ahead=True),
            "hone_window": lambda: mixed(marks=True, bound=True), "hone_marks": lambda: mixed(marks=True),
            "hone_bound": lambda: mixed(bound=True), "hone_sync": lambda: mixed(sync=True),
            "hone_steps": lambda: mixed(steps=True),
            "hone_calls": lambda: hone_calls(False), "hone_waited": lambda: hone_calls(True),
            "hone": lambda: hone(False), "hone_lazy": lambda: hone(True)}
    out = {v: [] for v in VARIANTS}
    for _ in range(rounds):
        for v in VARIANTS:
            warm_calls(lambda: model(target[0]))
            out[v].append(statistics.median(ways[v]()))
    print(json.dumps(out), flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", required=True, help="the folder holding hone_worker (build/share/hone/worker)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    ap.add_argument("--no-preload", action="store_true", help="torch's CUPTI, not libhone_cupti loaded first")
    ap.add_argument("--beside-context", action="store_true",
                    help="another process holds an idle CUDA context on the GPU while the cases run")
    ap.add_argument("--json")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        sys.path.insert(0, args.worker)
        return child(args.child, args.rounds, not args.no_preload)
    results = {}
    sleeper = None
    if args.beside_context:
        sleeper = context_holder([sys.executable])
        if sleeper is None:
            return 1
        print(f"another process (pid {sleeper.pid}) holds an idle CUDA context", flush=True)
    try:
        run_cases(args, results)
    finally:
        if sleeper is not None:
            sleeper.stdin.close()
            sleeper.wait(timeout=30)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def run_cases(args, results: dict) -> None:
    for case in args.cases:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", args.worker, "--rounds", str(args.rounds),
               "--child", case] + (["--no-preload"] if args.no_preload else [])
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        try:
            r = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            print(f"{case}: failed (rc {p.returncode}): {p.stderr[-800:]}", flush=True)
            continue
        results[case] = r
        base = statistics.median(r["plain"])
        print(f"{case}: " + "; ".join(f"{v} {'/'.join(f'{x:.2f}' for x in r[v])} us "
                                      f"({statistics.median(r[v]) / base:.2f}x)" for v in VARIANTS), flush=True)


if __name__ == "__main__":
    sys.exit(main())
