"""hone's eval worker: the only code of hone that imports torch. It loads KernelBench-format
tasks and candidate kernels, verifies the candidates and times them. Run as `python3 -m hone_worker`
(protocol/WORKER.md); the C++ eval client spawns one per device."""
