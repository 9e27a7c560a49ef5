"""bench/probes/ncu_csv.py: ncu's `--csv` output (one metric a row) read as each profiled launch's
gpu__time_duration.sum in launch order, keyed by the NVTX range a pattern finds in its row;
shared by bench/timing_truth and bench/probes/ncu_gap_probe.py."""
import csv
import io

SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def ncu_launches(text: str, pattern) -> tuple:
    """({'<group 1>|<group 2>': [us, ...]}, {same key: [kernel name, ...]}) from ncu's CSV `text`
    (anything before its '"ID"' header is skipped); a row whose NVTX columns (else the whole row)
    hold no match of `pattern` is left out."""
    start = text.find('"ID"')
    if start < 0:
        return {}, {}
    rows = [r for r in csv.reader(io.StringIO(text[start:])) if len(r) > 5]
    if not rows:
        return {}, {}
    header = rows[0]
    try:
        vi, ui = header.index("Metric Value"), header.index("Metric Unit")
        mi = header.index("Metric Name")
    except ValueError:
        return {}, {}
    nvtx_cols = [i for i, h in enumerate(header) if "NVTX" in h or h.startswith("thread")]
    ki = header.index("Kernel Name") if "Kernel Name" in header else None
    launches, names = {}, {}
    for r in rows[1:]:
        if len(r) <= vi or r[mi] != "gpu__time_duration.sum":
            continue
        try:
            value = float(r[vi].replace(",", "")) * SCALE.get(r[ui].strip(), 1e-3)
        except ValueError:
            continue
        text_of_row = " ".join(r[i] for i in nvtx_cols) if nvtx_cols else " ".join(r)
        found = pattern.search(text_of_row) or pattern.search(" ".join(r))
        if not found:
            continue
        key = f"{found.group(1)}|{found.group(2)}"
        launches.setdefault(key, []).append(value)
        names.setdefault(key, []).append(r[ki] if ki is not None else "")
    return launches, names
