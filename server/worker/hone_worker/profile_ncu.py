"""The profile's fallback when CUPTI could not count in-process: Nsight Compute (`ncu`) runs the
profiling child once more and counts the candidate call's kernels (same metric names: both use
PerfWorks). Its CSV becomes the side's "metrics" in hone_cupti's shape, marked source "ncu". When
ncu is absent or fails too, the CUPTI reason stays and ncu's own words are added to it."""
import csv
import io
import os
from typing import Callable

from .channel import log
from .errors import WorkerError

# The counters the analysis reads (server/profile/kernel_profile.cpp); ncu schedules the passes.
NCU_METRICS = [
    "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "sm__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second", "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
    "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_branch_targets.sum", "smsp__sass_branch_targets_threads_divergent.sum",
    "smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum",
    "smsp__sass_inst_executed.sum", "smsp__sass_thread_inst_executed.sum", "sm__inst_executed_pipe_tensor.sum",
    "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct", "dram__bytes.sum.peak_sustained",
]


def ncu_counters(result: dict, run_child: Callable[[list], dict], folder: str) -> None:
    """Fills result["candidate"]["metrics"] from ncu, or explains why not (in counters_error).
    `run_child(prefix)` runs the profiling child under the ncu command line `prefix`; `folder`
    is a folder the child may write (ncu's log lands there)."""
    from .profile import ncu_path

    side = result["candidate"]
    error = side["counters_error"]
    ncu = ncu_path()
    if ncu is None:
        error["message"] += "; the ncu fallback is not available (ncu not found on PATH or in /usr/local/cuda/bin)"
        return
    log_path = os.path.join(folder, "ncu.csv")
    prefix = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", ",".join(NCU_METRICS),
              "--clock-control", "none", "--profile-from-start", "off", "--target-processes", "all",
              "--log-file", log_path]
    try:
        run_child(prefix)
    except WorkerError as exc:
        error["message"] += f"; the ncu fallback failed too: {exc.message}"
        return
    text = open(log_path, errors="replace").read() if os.path.isfile(log_path) else ""
    ranges = parse_ncu_csv(text)
    if not ranges:
        said = [line for line in text.splitlines() if line.startswith(("==ERROR==", "==WARNING=="))][:3]
        error["message"] += "; the ncu fallback counted nothing" + (f": {' '.join(said)}" if said else "")
        return
    log(f"ncu counted {len(ranges)} kernel(s) after CUPTI could not ({error.get('code')})")
    side["metrics"] = {"chip": "", "set": "ncu", "passes": 0, "collected": {m: m for m in NCU_METRICS},
                       "omitted": [], "ranges_dropped": 0, "ranges": ranges}
    side["source"] = "ncu"
    side["cupti_counters_error"] = error
    side["counters_error"] = None


def parse_ncu_csv(text: str) -> list:
    """Ranges ({index, name, values}) from `ncu --csv --page raw --print-units base` output: a
    header row starting with "ID", a units row, then one row per profiled kernel."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, body = rows[0], rows[1:]
    if body and body[0] and body[0][0] == "":
        body = body[1:]  # the units row
    ranges = []
    for row in body:
        if len(row) != len(header):
            continue
        cells = dict(zip(header, row))
        values = {}
        for name in NCU_METRICS:
            number = _number(cells.get(name))
            if number is not None:
                values[name] = number
        ranges.append({"index": len(ranges), "name": cells.get("Kernel Name", ""), "values": values})
    return ranges


def _number(cell):
    if cell is None:
        return None
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        return None
