#!/usr/bin/env python3
"""bench/lsp_latency: latency of hone-server's requests that start no job (hover, code lens,
inlay hints) with 50 open kernels, measured while jobs run (50 builds queued on the CPU pool and
a hone/check on the device queue) against the same requests on the idle server (the baseline).
Prints p50/p90/p99/max in ms per phase and the busy/idle ratio; exits 1 when busy p99 >= 20 ms
or the check fails.

usage: lsp_latency.py [--server build/bin/hone-server] [--docs 50] [--requests 600] [--device cpu|cuda]
                      [--python PY] [--json OUT]
The checked kernel is relu.cpp on the CPU device, relu.cu with --device cuda; its lens is printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(256, 4096)]


def get_init_inputs():
    return []
"""

KERNEL = """#include "hone.h"

// kernel {n}
__global__ void scale_{n}(const float* x, float* y, int count) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = {n}.0f * x[i];
}}

__global__ void relu_{n}(const float* x, float* y, int count) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = x[i] > 0.f ? x[i] : 0.f;
}}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {{
  relu_{n}<<<(x.numel() + 255) / 256, 256, 0, stream>>>(x.data(), out.data(), (int)x.numel());
}}
"""

CUDA_KERNEL = """#include "hone.h"

__global__ void relu_kernel(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  long long n = x.numel();
  relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x.data(), out.data(), n);
}
"""

CPU_KERNEL = """#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
}
"""


class Client:
    """A minimal LSP client over the server's pipes (Content-Length framing)."""

    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.lock = threading.Condition()
        self.responses = {}
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:  # a server request: accept it
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message and "method" not in message:
                with self.lock:
                    self.responses[message["id"]] = (time.perf_counter(), message)
                    self.lock.notify_all()

    def _send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        with self.lock:
            rid = self.next_id
            self.next_id += 1
        sent = time.perf_counter()
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid, sent

    def wait(self, rid, timeout=600):
        with self.lock:
            if not self.lock.wait_for(lambda: rid in self.responses, timeout):
                raise RuntimeError(f"no response to request {rid}")
            return self.responses.pop(rid)

    def call(self, method, params):
        rid, sent = self.request(method, params)
        received, message = self.wait(rid)
        return (received - sent) * 1000.0, message

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})


def percentiles(samples):
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
    return {"n": len(ordered), "p50_ms": pick(0.50), "p90_ms": pick(0.90), "p99_ms": pick(0.99),
            "max_ms": ordered[-1], "mean_ms": statistics.fmean(ordered)}


def measure(client, uris, count):
    samples = []
    for i in range(count):
        uri = uris[i % len(uris)]
        kind = i % 3
        if kind == 0:
            ms, reply = client.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 18}})
        elif kind == 1:
            ms, reply = client.call("textDocument/codeLens", {"textDocument": {"uri": uri}})
        else:
            ms, reply = client.call("textDocument/inlayHint", {"textDocument": {"uri": uri},
                                                               "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}})
        if "error" in reply:
            raise RuntimeError(f"request failed: {reply}")
        samples.append(ms)
    return samples


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get("HONE_SERVER", str(root / "build" / "bin" / "hone-server")))
    parser.add_argument("--docs", type=int, default=50)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hone-lsp-latency-") as tmp:
        work = Path(tmp)
        os.chmod(work, 0o755)
        (work / "relu.py").write_text(TASK)
        checked_name, checked_text = ("relu.cu", CUDA_KERNEL) if args.device == "cuda" else ("relu.cpp", CPU_KERNEL)
        (work / checked_name).write_text(checked_text)
        client = Client([args.server, "--debounce-ms", "0"], cwd=work)
        client.call("initialize", {"processId": os.getpid(), "rootUri": work.as_uri(), "capabilities": {},
                                   "initializationOptions": {"python": args.python, "device": args.device}})
        client.notify("initialized", {})
        uris = []
        for n in range(args.docs):
            path = work / f"kernel_{n}.cu"
            text = KERNEL.format(n=n)
            path.write_text(text)
            uris.append(path.as_uri())
            client.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "cuda-cpp", "version": 1, "text": text}})
        checked_uri = (work / checked_name).as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": checked_uri, "languageId": "cuda-cpp", "version": 1, "text": checked_text}})
        check_id, _ = client.request("hone/check", {"textDocument": {"uri": checked_uri}})

        busy = measure(client, uris, args.requests)
        _, status = client.call("hone/result", {"textDocument": {"uri": checked_uri}})
        still_running = bool(status["result"]["running"]) or check_id not in client.responses
        client.call("hone/waitIdle", {})
        idle = measure(client, uris, args.requests)
        _, check_reply = client.wait(check_id)
        _, lenses = client.call("textDocument/codeLens", {"textDocument": {"uri": checked_uri}})
        lens = lenses["result"][0]["command"]["title"] if lenses.get("result") else None
        verdict = check_reply.get("result", {}).get("result", {}).get("verdict")
        client.call("shutdown", None)
        client.notify("exit", None)
        client.proc.wait(timeout=60)

    result = {"docs": args.docs, "device": args.device, "busy": percentiles(busy), "idle": percentiles(idle),
              "job_running_at_end_of_busy_phase": still_running, "checked_kernel_lens": lens,
              "check_error": check_reply.get("error"), "verdict": verdict}
    result["p99_ratio_busy_over_idle"] = result["busy"]["p99_ms"] / max(result["idle"]["p99_ms"], 1e-9)
    for phase in ("busy", "idle"):
        p = result[phase]
        print(f"{phase:5s} n={p['n']} p50={p['p50_ms']:.2f} ms p90={p['p90_ms']:.2f} ms "
              f"p99={p['p99_ms']:.2f} ms max={p['max_ms']:.2f} ms")
    print(f"p99 busy/idle = {result['p99_ratio_busy_over_idle']:.2f}x; a job was still running after the busy phase: {still_running}")
    print(f"lens of the checked kernel ({checked_name}): {lens}" + (f"; check error: {check_reply['error']}" if "error" in check_reply else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    ok = result["busy"]["p99_ms"] < 20.0 and still_running and "error" not in check_reply
    print("PASS: p99 < 20 ms while jobs run, and the check ran" if ok
          else "FAIL: p99 >= 20 ms, no job ran during the measurement, or the check failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
