"""The python runner, `python3 -m hone_worker.runner --device cpu|cuda:N`: a candidate process of
the candidate protocol (protocol/WORKER.md). It loads exactly one candidate (torch form, KernelBench
ModelNew, raw form, the reference itself, or nothing) into a fresh process the judge started, runs
the calls the judge asks for on memory the judge shares, and reports; the judge decides."""
