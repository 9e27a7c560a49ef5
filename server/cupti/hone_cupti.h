/* cupti/hone_cupti.h: the C API of libhone_cupti.so (Activity, Range Profiler, SASS Metrics),
 * loaded with ctypes by the eval worker's profiler (server/worker/hone_worker/profile.py) and
 * linked by tests. Every call takes and returns JSON text; a returned string belongs to the
 * library and stays valid until the next call. Calls are serialised by one internal lock; call
 * them from the thread that runs the profiled CUDA work (the worker's main thread). Never a
 * crash for a missing GPU, driver or permission: the answer is {"ok": false, "error": {"code",
 * "message", "call"}}. */
#ifndef HONE_CUPTI_H
#define HONE_CUPTI_H

#if defined(__GNUC__)
#define HONE_CUPTI_API __attribute__((visibility("default")))
#else
#define HONE_CUPTI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* {"ok": true, "cupti_api_version": 130001, "cupti_library": "/path/libcupti.so.13"} */
HONE_CUPTI_API const char* hone_cupti_version(void);

/* Offline (no GPU): validates metric names for a chip and counts replay passes with the
 * Profiler Host API. Request: {"chip": "GH100", "metrics": [names]} or {"chip": "GH100",
 * "set": "default"|"full", "dtype": "bf16", "max_passes": 2}. Answer: {"ok", "chip", "passes",
 * "collected": [names], "omitted": [{"name", "reason"}], "supported_chips": [...]}. */
HONE_CUPTI_API const char* hone_cupti_host_query(const char* request_json);

/* Starts recording on the current CUDA context (the caller must have created one, e.g. by
 * torch.cuda.init() or a first allocation). Request: {"activity": bool, "metrics": null |
 * "default" | "full" | [names], "dtype": "fp32"|"fp16"|"bf16"|..., "max_passes": 2,
 * "max_ranges": 1024} or, alone, {"sass": true | {"metrics": [names], "max_kernels": 8,
 * "max_instructions": 65536}}. "activity" records every kernel, memcpy and memset (Activity
 * API); "metrics" collects counters per kernel with the Range Profiler (auto range, kernel
 * replay); "sass" counts per instruction with the SASS Metrics API (GPU granularity, lazy
 * patching: each kernel launched inside the recording is patched at its first launch), which
 * changes the kernels' code, so it is refused beside "metrics" or "activity". "kernel_prologue":
 * true (beside "metrics" or "activity") subscribes to CUPTI's launch callbacks for the recording,
 * so that hone_cupti_kernel_prologue can arm a function run before each kernel launch.
 * Answer: {"ok": true, ...} or an error. */
HONE_CUPTI_API const char* hone_cupti_begin(const char* request_json);

/* A kernel prologue: stream is the launch's CUstream (NULL: the legacy default stream; the
 * per-thread stream for a per-thread launch on stream 0), user what was armed with it; returns 0
 * or an error code (counted as a failure). */
typedef int (*hone_cupti_prologue_fn)(void* stream, void* user);

/* Arms (fn non-NULL) or disarms (fn NULL) the running recording's kernel prologue (begun with
 * "kernel_prologue": true): while armed, fn(stream, user) runs on the launching thread at the
 * entry of every kernel launch of the process (runtime or driver API, Ex and cooperative launches;
 * a runtime launch that enters the driver is one launch; launches fn makes are none; a graph
 * launch is one, its kernels not separated). hone arms hone_harness_flush_prologue around a
 * counted call, so each of its kernels starts from a flushed cache, as under ncu. hone_cupti_end's
 * answer then carries "kernel_prologue": {"launches" (seen while armed), "failures",
 * "first_failure" (a code, 0: none), "graphs", "missed" (launches it could not precede: a <<<>>>
 * launch of CUDA 13 runs it from the driver launch inside it, whose callback CUPTI must report)}. Answer: {"ok": true} or an error. */
HONE_CUPTI_API const char* hone_cupti_kernel_prologue(hone_cupti_prologue_fn fn, void* user);

/* Sets up the Range Profiler on the current context ahead of need (counter availability, the
 * configuration, cuptiRangeProfilerSetConfig: about a second on the H200) without collecting:
 * the next hone_cupti_begin whose "metrics", "dtype", "max_passes" and "max_ranges" are the same,
 * on the same context, only starts it (its end answer's seconds then carry "prepared_ahead", the
 * set-up's seconds). A begin asking for other counters discards it. Request: begin's "metrics"
 * fields. Answer: {"ok": true, "seconds": {"setup", "setup_stages"}} or an error. */
HONE_CUPTI_API const char* hone_cupti_prepare(const char* request_json);

/* Stops recording (the caller synchronises the device first) and answers with what was
 * recorded: {"ok": true, "activity": {"kernels": [...], "memcpys": [...], "memsets": [...],
 * "dropped_records": n}, "metrics": {"chip", "set", "passes", "collected", "omitted",
 * "ranges_dropped", "ranges": [{"index", "name", "values": {metric: value}}]}, "sass": {"chip",
 * "granularity": "gpu", "lazy_patching": true, "metrics": [names], "omitted": [{"name",
 * "reason"}], "offered": [the chip's SASS metric names], "records", "records_dropped",
 * "kernels": [{"function" (mangled, as CUPTI names it), "cubin_crc", "function_index",
 * "instructions": [{"pc_offset" (bytes from the function's start), "values": {metric: count}}]}],
 * "kernels_dropped", "instructions_dropped"}, "seconds": {"setup", "region", "collect", and with
 * "metrics" "setup_stages": {"initialize", "availability", "config_image", "enable",
 * "counter_data", "set_config", "start"} and, when hone_cupti_prepare set it up, "prepared_ahead"}}. */
HONE_CUPTI_API const char* hone_cupti_end(void);

#ifdef __cplusplus
}
#endif

#endif
