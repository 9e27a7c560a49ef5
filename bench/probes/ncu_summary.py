"""Summarises an ncu --csv --nvtx run of ipc_timing_probe.py ncu: per NVTX range (case), the median
per kernel launch of gpu__time_duration.sum and the sum per call."""
import collections
import csv
import statistics
import sys

rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
print("header", h[:8])
ki, vi, ni, gi = h.index("Kernel Name"), h.index("Metric Value"), h.index("NVTX") if "NVTX" in h else 4, h.index("Grid Size")
per = collections.defaultdict(list)
for r in rows[1:]:
    try:
        value = float(r[vi].replace(",", ""))
    except ValueError:
        continue
    nvtx = r[ni]
    case = nvtx.split(":")[1] if ":" in nvtx else nvtx
    per[case].append((r[ki][:50], r[gi], value / 1000.0))
for case, launches in per.items():
    kinds = collections.defaultdict(list)
    for name, grid, us in launches:
        kinds[(name, grid)].append(us)
    meds = {f"{n} {g}": statistics.median(v) for (n, g), v in kinds.items()}
    print("ncu", case, "sum_us=%.3f" % sum(meds.values()), meds)
