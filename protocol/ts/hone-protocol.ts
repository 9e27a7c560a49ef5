// protocol/ts/hone-protocol.ts: GENERATED from protocol/schema/*.schema.json by protocol/ts/generate.mjs
// (npm run generate). Do not edit: change the schema and regenerate; a test fails when they differ.

/**
 * Arguments of the lens commands hone.showReport, hone.check, hone.profile and hone.optimize (client-side commands: the extension runs them, typically by sending hone/check etc.).
 *
 * @minItems 1
 * @maxItems 1
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "LensArguments".
 */
export type LensArguments = [DocumentUri];
/**
 * A file: URI of an open document.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "DocumentUri".
 */
export type DocumentUri = string;
/**
 * Arguments of hone.optimize from a profiler suggestion's code action: the document and the suggestion to pursue.
 *
 * @minItems 1
 * @maxItems 2
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "OptimizeCommandArguments".
 */
export type OptimizeCommandArguments =
  [DocumentUri | OptimizeHint] | [DocumentUri | OptimizeHint, DocumentUri | OptimizeHint];
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "Null".
 */
export type Null = null;
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "ProgressToken".
 */
export type ProgressToken = string | number;
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "JobKind".
 */
export type JobKind = 'check' | 'profile' | 'optimize';
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "JobStatus".
 */
export type JobStatus = 'done' | 'cancelled' | 'superseded' | 'failed';
/**
 * One immutable result of checking a kernel against its reference: hone check --json, hone/result, the store. Units live in field names.
 */
export type Verdict = {
  schema_version: 1;
  status: 'correct' | 'incorrect' | 'compile_error' | 'runtime_error' | 'timeout' | 'rejected';
  /**
   * Why the verdict is not correct, in words a user can act on.
   */
  reason?: string;
  kernel: {
    path: string;
    /**
     * sha256 of the source and its local headers
     */
    hash: string;
    /**
     * modelnew: a KernelBench answer file (ModelNew, load_inline or Triton)
     */
    form: 'raw' | 'torch' | 'modelnew' | 'unknown';
    language: 'cuda' | 'cpp';
    [k: string]: unknown;
  };
  task: {
    path: string;
    hash: string;
    name?: string;
    [k: string]: unknown;
  };
  device: {
    kind: 'cuda' | 'cpu';
    name: string;
    index?: number;
    /**
     * e.g. sm_90
     */
    arch?: string;
    /**
     * the GPU's UUID (GPU-...), naming it in a pool of several
     */
    uuid?: string;
    [k: string]: unknown;
  };
  /**
   * Set when a cluster executor ran the check: the Slurm job and node, and how many jobs it took.
   */
  executor?: {
    kind: 'slurm';
    job_id?: string;
    node?: string;
    attempts: number;
    [k: string]: unknown;
  };
  toolchain?: {
    nvcc?: string;
    host_compiler?: string;
    torch?: string;
    python?: string;
    [k: string]: unknown;
  };
  sandbox: {
    mode: 'bwrap' | 'namespaces' | 'none';
    explicitly_disabled?: boolean;
    warning?: string;
    [k: string]: unknown;
  };
  compile: Compile;
  signature?: Signature;
  correctness?: {
    atol: number;
    rtol: number;
    trials: Trial[];
    /**
     * Each named policy check and whether it passed (inputs_unchanged, unwritten_output, determinism, fresh_inputs, ...)
     */
    checks?: {
      [k: string]: boolean;
    };
    [k: string]: unknown;
  };
  timing?: Timing;
  baselines?: {
    eager?: Timing;
    compile?: Timing | null;
    [k: string]: unknown;
  };
  /**
   * reference time / kernel time; a point only when both sides are quiet, else a range
   */
  speedup?: {
    eager?: number | null;
    compile?: number | null;
    eager_range?: SpeedupRange;
    compile_range?: SpeedupRange;
    /**
     * the time the speedups divide
     */
    basis?: 'device' | 'call';
    /**
     * the same speedups by call time (when the basis is device time)
     */
    call?: {
      eager?: number | null;
      compile?: number | null;
      eager_range?: SpeedupRange;
      compile_range?: SpeedupRange;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  /**
   * The physical floor: compulsory bytes over peak DRAM bandwidth.
   */
  floor?: {
    bytes?: number;
    peak_dram_bytes_per_s?: number;
    floor_us?: number;
    [k: string]: unknown;
  };
  /**
   * GPU time of one candidate call split by who launched it (CUPTI or profiler kernel records).
   */
  kernel_time?: {
    own_us?: number;
    library_us?: number;
    own_share?: number;
    kernels?: {
      name: string;
      duration_us: number;
      own: boolean;
      stream?: number;
      grid?: number[];
      block?: number[];
      registers?: number;
      shared_bytes?: number;
      [k: string]: unknown;
    }[];
    [k: string]: unknown;
  };
  flags: {
    /**
     * weak_task, constant_output, library_ops, speedup_over_10x, strides_differ, timing_noisy, timing_withheld, baseline_noisy, baseline_unavailable, no_sandbox, weak_sandbox, ...
     */
    id: string;
    message: string;
    [k: string]: unknown;
  }[];
  /**
   * For runtime_error and timeout: what was seen.
   */
  evidence?: {
    signal?: string;
    exit_code?: number;
    cuda_error?: string;
    stderr_tail?: string[];
    traceback?: string;
    /**
     * Set when the process died of SIGKILL and the kernel's count of out-of-memory kills (/proc/vmstat oom_kill) could be read: how much it rose while the process ran (0: not the OOM killer)
     */
    oom_kills?: number;
    [k: string]: unknown;
  };
  /**
   * A KernelBench answer file: how Model and ModelNew were built, whether their parameters match, the load_inline extensions hone built
   */
  answer?: {
    initialised?: string;
    /**
     * match, or why ModelNew's state_dict() differs from Model's
     */
    parameters?: string;
    extensions?: string[];
    triton?: boolean;
    [k: string]: unknown;
  };
  /**
   * hone profile's counters, roofline and suggestions: profile.schema.json (its $id resolves this $ref; validators register it by that $id)
   */
  profile?: Profile;
  /**
   * Wall time of each stage of this check.
   */
  seconds?: {
    [k: string]: number;
  };
  created_at?: string;
  [k: string]: unknown;
};

/**
 * hone's additions to LSP 3.17, spoken by hone-server (server/lsp) and the VS Code extension: every custom request, notification, their params and results, the settings, and the commands carried by code lenses and code actions. protocol/PROTOCOL.md shows each with an example; protocol/ts/ holds the TypeScript generated from this file.
 */
export interface HoneLspProtocol {
  settings?: Settings;
  lensArguments?: LensArguments;
  optimizeArguments?: OptimizeCommandArguments;
  [k: string]: unknown;
}
/**
 * initializationOptions, and the `hone` section of workspace/didChangeConfiguration. Changing python, device, arch, sandbox, seeds or gpus gives later jobs a new engine.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "Settings".
 */
export interface Settings {
  python?: string;
  /**
   * The GPUs checks spread over: all, a count (2) or indices (0,2); absent: one GPU
   */
  gpus?: string;
  device?: 'auto' | 'cpu' | 'cuda';
  /**
   * e.g. sm_90
   */
  arch?: string;
  /**
   * false only as an explicit choice
   */
  sandbox?: boolean;
  seeds?: number;
  /**
   * The optimizer's model endpoint; the key comes only from the server's environment (HONE_LLM_API_KEY).
   */
  llm?: {
    baseUrl?: string;
    model?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "OptimizeHint".
 */
export interface OptimizeHint {
  /**
   * the profiler suggestion to pursue
   */
  hint: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "Empty".
 */
export interface Empty {}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "TextDocumentIdentifier".
 */
export interface TextDocumentIdentifier {
  uri: DocumentUri;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "DocumentParams".
 */
export interface DocumentParams {
  textDocument: TextDocumentIdentifier;
  [k: string]: unknown;
}
/**
 * Per-request options. check: device, seeds, atol, rtol, timing, baselines. profile: metrics, baselines (false: no reference profile and no baseline timings). optimize: device, samples, rounds, budgetSeconds, tokenBudget, tuner (true: the built-in tuner even when an LLM is configured), hint (free text for the model's prompts).
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "JobOptions".
 */
export interface JobOptions {
  device?: 'auto' | 'cpu' | 'cuda';
  seeds?: number;
  atol?: number;
  rtol?: number;
  timing?: boolean;
  baselines?: boolean;
  samples?: number;
  rounds?: number;
  budgetSeconds?: number;
  tokenBudget?: number;
  tuner?: boolean;
  /**
   * profile: the counter set (default: at most 2 replay passes on sm_90)
   */
  metrics?: 'default' | 'full';
  /**
   * optimize: a direction for the model, added to every prompt of the run (the built-in tuner ignores it)
   */
  hint?: string;
}
/**
 * Starts a job on the document's current buffer (saved or not). The request is answered when the job ends; $/cancelRequest or window/workDoneProgress/cancel stop it (answer: -32800).
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "JobParams".
 */
export interface JobParams {
  textDocument: TextDocumentIdentifier;
  workDoneToken?: ProgressToken;
  /**
   * The reference task (a KernelBench .py) instead of the kernel's pairing.
   */
  task?: string;
  options?: JobOptions;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "CheckOutcome".
 */
export interface CheckOutcome {
  /**
   * The lens text, e.g. "✓ correct · 41.2 µs · 1.8× eager · 0.9× compile".
   */
  summary: string;
  verdict: Verdict;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "compile".
 */
export interface Compile {
  ok: boolean;
  cached?: boolean;
  seconds?: number;
  arch?: string;
  command?: string[];
  /**
   * path of the built shared library
   */
  library?: string;
  diagnostics: Diagnostic[];
  kernels?: KernelStatic[];
  sass_available?: boolean;
  /**
   * what the kernel's own code imports or defines that no kernel needs and a tamperer does
   */
  tamper_signs?: string[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "diagnostic".
 */
export interface Diagnostic {
  file: string;
  /**
   * 1-based; 0 when the tool gives no line
   */
  line: number;
  /**
   * 1-based; 0 when unknown
   */
  column: number;
  severity: 'error' | 'warning' | 'note';
  message: string;
  source?: 'nvcc' | 'host' | 'ptxas' | 'linker' | 'hone';
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "kernel_static".
 */
export interface KernelStatic {
  /**
   * demangled
   */
  name: string;
  mangled: string;
  line?: number;
  registers?: number;
  spill_store_bytes?: number;
  spill_load_bytes?: number;
  static_shared_bytes?: number;
  stack_frame_bytes?: number;
  constant_bytes?: number;
  ptx?: {
    global_loads?: WidthCounts;
    global_stores?: WidthCounts;
    local_loads?: number;
    local_stores?: number;
    tensor_core?: boolean;
    tensor_core_instructions?: string[];
    [k: string]: unknown;
  };
  sass?: {
    global_loads?: WidthCounts;
    global_stores?: WidthCounts;
    local_loads?: number;
    local_stores?: number;
    tensor_core?: boolean;
    tensor_core_instructions?: string[];
    [k: string]: unknown;
  } | null;
  occupancy?: {
    block_size?: number;
    block_size_source?: 'launch_bounds' | 'launch_site' | 'assumed' | 'measured';
    active_blocks_per_sm?: number;
    active_warps_per_sm?: number;
    max_warps_per_sm?: number;
    occupancy_pct?: number;
    limited_by?: 'registers' | 'shared_memory' | 'warps' | 'blocks';
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * Static instruction counts by access width in bits
 *
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "width_counts".
 */
export interface WidthCounts {
  '8'?: number;
  '16'?: number;
  '32'?: number;
  '64'?: number;
  '128'?: number;
  '256'?: number;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "signature".
 */
export interface Signature {
  inputs: TensorSpec[];
  params: TensorSpec[];
  outputs: TensorSpec[];
  /**
   * the expected torch-form declaration
   */
  torch?: string;
  /**
   * the expected raw-form declaration
   */
  raw?: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "tensor_spec".
 */
export interface TensorSpec {
  name: string;
  kind: 'tensor' | 'int' | 'float' | 'bool';
  dtype?: string;
  shape?: number[];
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "trial".
 */
export interface Trial {
  seed: number;
  passed: boolean;
  max_abs_error?: number | null;
  max_rel_error?: number | null;
  mismatch?: {
    output?: number;
    index?: number[];
    got?: number | string | null;
    expected?: number | string | null;
    /**
     * elements that fail as `kind` says
     */
    count?: number;
    /**
     * never written (still the poison), NaN or Inf where the reference is finite, or out of tolerance
     */
    kind?: 'unwritten' | 'nonfinite' | 'tolerance';
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "timing".
 */
export interface Timing {
  p50_us: number;
  p10_us: number;
  p90_us: number;
  mean_us?: number;
  min_us?: number;
  max_us?: number;
  reps: number;
  warmup?: number;
  /**
   * cuda_events_l2_flush or host_clock
   */
  method: string;
  /**
   * timed calls whose output was verified
   */
  spot_checks?: number;
  /**
   * call time: events around each call, cache flushed
   */
  call?: TimeSummary;
  /**
   * device time: the GPU time of the call's work
   */
  device?: TimeSummary;
  /**
   * when device time is counted (method cupti_gpu_time_duration): the same calls' busy time in the activity records
   */
  device_records?: TimeSummary;
  /**
   * when each counted device-time sample averages several calls (device.calls_per_sample): the counted calls one by one
   */
  device_per_call?: TimeSummary;
  /**
   * when counters were asked for (the default on CUDA) and device time still comes from the records or events: why; or, device time counted, why its calls' cache was flushed once per call rather than before each kernel as asked
   */
  kernel_counters_note?: string;
  /**
   * when device time is counted: each kernel of a call in launch order, its counted time's median over the counted calls (each kernel after a flush, as ncu counts it)
   */
  device_kernels?: {
    /**
     * the kernel's name; empty where unknown
     */
    name?: string;
    p50_us: number;
    [k: string]: unknown;
  }[];
  /**
   * clock warm-up until the timing settled
   */
  settle_ms?: number | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "time_summary".
 */
export interface TimeSummary {
  p50_us: number;
  p10_us: number;
  p90_us: number;
  reps?: number;
  method?: string;
  /**
   * (p90 - p10) / p50
   */
  spread?: number;
  noisy?: boolean;
  /**
   * the median's 95% confidence interval, low end (order statistics of the calls)
   */
  p50_low_us?: number;
  /**
   * the median's 95% confidence interval, high end
   */
  p50_high_us?: number;
  /**
   * each sample is the mean of this many consecutive calls (counted device time); absent: one call a sample
   */
  calls_per_sample?: number;
  /**
   * every sample's time in the order the calls ran (one call's, or the mean of calls_per_sample calls'); only where HONE_TIMING_SAMPLES=1 asked for them
   */
  samples_us?: number[];
  [k: string]: unknown;
}
/**
 * a speedup known only as a range: the reference's p10 over the kernel's p90 .. p90 over p10
 *
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "speedup_range".
 */
export interface SpeedupRange {
  low: number;
  high: number;
  [k: string]: unknown;
}
/**
 * hone profile's report (a verdict's `profile`): kernels and their hardware counters, roofline points of the candidate and its baseline, ranked suggestions. Units live in field names; counters are never invented: absent when not collected.
 */
export interface Profile {
  schema_version: 1;
  /**
   * What the device reported about itself (the worker's hello).
   */
  device: {
    index?: number;
    name: string;
    arch?: string;
    uuid?: string;
    sm_count?: number;
    l2_bytes?: number;
    memory_bytes?: number;
    max_threads_per_sm?: number;
    shared_bytes_per_sm?: number;
    registers_per_sm?: number;
    memory_clock_khz?: number;
    memory_bus_bits?: number;
    sm_clock_khz?: number;
    theoretical_dram_bytes_per_s?: number;
    [k: string]: unknown;
  };
  spec?: GpuSpec | null;
  ceilings: {
    dram_bytes_per_s?: Ceiling;
    flops_per_s?: {
      [k: string]: Ceiling;
    };
    [k: string]: unknown;
  };
  measured_ceilings?: MeasuredCeilings | null;
  task_dtype?: string;
  /**
   * the task's input + output bytes
   */
  compulsory_bytes?: number;
  candidate: Call;
  /**
   * the PyTorch reference profiled the same way: the baseline
   */
  reference?: Call | null;
  /**
   * the candidate call's per-instruction counters (CUPTI SASS Metrics API), counted in one more call after every other measurement; absent in reports that predate them
   */
  sass?: SassCounters | null;
  suggestions: Suggestion[];
  overhead: {
    /**
     * wall time of the traced call
     */
    activity_seconds?: number;
    /**
     * wall time of the counter replay pass
     */
    replay_seconds?: number;
    /**
     * wall time of the whole profile request in the worker
     */
    profile_seconds?: number;
    [k: string]: unknown;
  };
  notes: string[];
  /**
   * path of the SVG roofline plot written beside the JSON
   */
  plot?: string | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "gpu_spec".
 */
export interface GpuSpec {
  name: string;
  key: string;
  arch?: string;
  chip?: string;
  sm_count?: number;
  boost_clock_hz?: number;
  peak_dram_bytes_per_s: number;
  memory_bytes?: number;
  l2_bytes?: number;
  shared_bytes_per_sm?: number;
  shared_bytes_per_block?: number;
  registers_per_sm?: number;
  max_warps_per_sm?: number;
  max_blocks_per_sm?: number;
  peak_flops_per_s: {
    [k: string]: number;
  };
  source: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "ceiling".
 */
export interface Ceiling {
  value: number;
  source: 'measured' | 'spec' | 'device';
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "measured_ceilings".
 */
export interface MeasuredCeilings {
  device_name: string;
  torch_version?: string;
  measured_at?: string;
  dram_copy_bytes_per_s: number | null;
  matmul_flops_per_s: {
    [k: string]: number;
  };
  details?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "call".
 */
export interface Call {
  kernels: Kernel[];
  own_us: number;
  library_us: number;
  copy_us: number;
  own_share: number;
  counters: Counters;
  match_note?: string;
  roofline: RooflinePoint | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "kernel".
 */
export interface Kernel {
  name: string;
  own: boolean;
  duration_us: number;
  /**
   * @minItems 3
   * @maxItems 3
   */
  grid: [number, number, number];
  /**
   * @minItems 3
   * @maxItems 3
   */
  block: [number, number, number];
  registers?: number;
  shared_bytes?: number;
  local_bytes_per_thread?: number;
  stream?: number;
  /**
   * raw counter values by metric name
   */
  metrics?: {
    [k: string]: number;
  };
  derived?: {
    dram_bytes?: number;
    dram_read_bytes?: number;
    dram_write_bytes?: number;
    flops?: {
      [k: string]: number;
    };
    global_load_efficiency_pct?: number;
    global_store_efficiency_pct?: number;
    shared_wavefronts_per_request?: number;
    divergent_branch_pct?: number;
    local_memory_instructions?: number;
    achieved_occupancy_pct?: number;
    tensor_instructions?: number;
    sm_clock_hz?: number;
    l1_hit_pct?: number;
    l2_hit_pct?: number;
    active_threads_per_instruction?: number;
    [k: string]: unknown;
  };
  roofline?: RooflinePoint | null;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "roofline_point".
 */
export interface RooflinePoint {
  label: string;
  seconds: number;
  dram_bytes: number;
  flops?: number;
  precision?: string | null;
  arithmetic_intensity: number;
  achieved_flops_per_s?: number;
  achieved_bytes_per_s?: number;
  peak_bytes_per_s?: number;
  peak_flops_per_s?: number;
  ridge_intensity?: number;
  memory_pct: number;
  compute_pct: number;
  pct_of_roofline: number;
  bound: 'memory' | 'compute' | 'latency';
  dram_source?: string;
  flops_source?: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "counters".
 */
export interface Counters {
  available: boolean;
  /**
   * cupti or ncu
   */
  source?: string;
  /**
   * why they are missing: insufficient_privileges, hardware_busy, not_supported, no_device, ...
   */
  code?: string;
  message?: string;
  chip?: string;
  /**
   * default, full or custom
   */
  set?: string;
  passes?: number;
  omitted?: string[];
  [k: string]: unknown;
}
/**
 * Per-instruction counters of the candidate call, by kernel and SASS offset; when unavailable, code and message say why.
 *
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "sass_counters".
 */
export interface SassCounters {
  available: boolean;
  /**
   * why they are missing: insufficient_privileges, hardware_busy, not_supported, no_device, no_context, child_died (the pass took the profiling child down), kernel_error, not_collected, ...
   */
  code?: string;
  message?: string;
  chip?: string;
  /**
   * collected, in hone's order: smsp__sass_inst_executed, smsp__sass_thread_inst_executed, smsp__sass_thread_inst_executed_pred_on, smsp__sass_sectors_mem_global, smsp__sass_sectors_mem_global_ideal where the GPU offers them
   */
  metrics: string[];
  omitted?: {
    name: string;
    reason: string;
    [k: string]: unknown;
  }[];
  kernels: {
    /**
     * mangled, as CUPTI names it
     */
    function: string;
    cubin_crc?: number;
    instructions: {
      /**
       * bytes from the function's first instruction (nvdisasm's /*0040* /)
       */
      pc_offset: number;
      values: {
        [k: string]: number;
      };
      [k: string]: unknown;
    }[];
    [k: string]: unknown;
  }[];
  kernels_dropped?: number;
  instructions_dropped?: number;
  records_dropped?: number;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `Profile`'s JSON-Schema
 * via the `definition` "suggestion".
 */
export interface Suggestion {
  /**
   * the rule: uncoalesced_loads, uncoalesced_stores, narrow_loads, local_memory, bank_conflicts, low_bandwidth, occupancy_registers, occupancy_shared_memory, small_grid, tensor_cores_unused, divergent_branches, latency_bound, redundant_dram_traffic, time_outside_own_kernels
   */
  id: string;
  title: string;
  detail: string;
  kernel: string | null;
  /**
   * @minItems 1
   */
  evidence: [
    {
      metric: string;
      value: number;
      comparison: string;
      threshold: number;
      unit: string;
      [k: string]: unknown;
    },
    ...{
      metric: string;
      value: number;
      comparison: string;
      threshold: number;
      unit: string;
      [k: string]: unknown;
    }[]
  ];
  gain: {
    speedup: number;
    basis: string;
    [k: string]: unknown;
  } | null;
  location: {
    file: string;
    line: number;
    scope: 'kernel' | 'line';
    /**
     * @minItems 1
     */
    lines?: [number, ...number[]];
    [k: string]: unknown;
  } | null;
  saved_us: number;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "ProfileOutcome".
 */
export interface ProfileOutcome {
  summary: string;
  /**
   * the check's verdict with `profile` (profile.schema.json) when the kernel was profiled
   */
  verdict: Verdict;
  /**
   * the SVG roofline plot written
   */
  plot?: string;
  /**
   * why the kernel was not profiled
   */
  skipped?: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "OptimizeOutcome".
 */
export interface OptimizeOutcome {
  summary: string;
  optimize: OptimizeResult;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "OptimizeResult".
 */
export interface OptimizeResult {
  runId: number;
  status: 'finished' | 'interrupted' | 'failed';
  /**
   * rounds, budget, tokens, speed_of_light, exhausted, cancelled, error
   */
  stopReason: string;
  candidates: number;
  rounds: number;
  elapsedSeconds: number;
  /**
   * this kernel's proposals from every run since it was opened, oldest first
   */
  proposals: Proposal[];
  /**
   * the id of this run's winner (re-verified), or after a Stop the fastest candidate verified so far (its proposal has rechecked false); null when nothing faster was verified
   */
  best: number | null;
  summary: string;
  error?: string;
  /**
   * the starting kernel's verified median time (µs); null when it was not verified correct
   */
  baselineP50Us?: number | null;
  /**
   * this run's candidates by status (the starting kernel not counted)
   */
  counts?: {
    [k: string]: number;
  };
  [k: string]: unknown;
}
/**
 * A verified proposal from an optimizer run: the winner re-verified on fresh seeds, or (rechecked false) the fastest candidate verified so far when the run was stopped before its re-verification.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "Proposal".
 */
export interface Proposal {
  /**
   * the candidate's id in the store
   */
  id: number;
  runId: number;
  /**
   * the whole proposed kernel source
   */
  text: string;
  verdict: Verdict;
  speedup: Speedups;
  /**
   * true: re-verified on fresh seeds as the run's winner; false: verified once, the run was stopped first (absent: true)
   */
  rechecked?: boolean;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "Speedups".
 */
export interface Speedups {
  eager?: number;
  compile?: number;
  /**
   * the current kernel's time over the proposal's, when both times are quiet
   */
  kernel?: number;
  /**
   * when either time was noisy: the speedup over the current kernel as a range instead of kernel
   */
  kernelRange?: SpeedupRange;
  [k: string]: unknown;
}
/**
 * The hone/jobFinished notification, also the result of a hone/check|profile|optimize request that ends with status done (other endings answer with an error). A stopped optimize (status cancelled) carries its partial result: what it verified before the Stop.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "JobFinished".
 */
export interface JobFinished {
  jobId: number;
  kind: JobKind;
  uri: DocumentUri;
  status: JobStatus;
  result?: CheckOutcome | ProfileOutcome | OptimizeOutcome;
  error?: string;
  [k: string]: unknown;
}
/**
 * hone/jobProgress: each stage of a job (also sent as $/progress reports when there is a progress token). Optimizer events add the round fields; events about one candidate (proposed, verified, recheck) add candidateId and status, and a verified correct candidate its own p50Us and speedups.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "JobProgress".
 */
export interface JobProgress {
  jobId: number;
  kind: JobKind;
  uri: DocumentUri;
  /**
   * build, worker, task, correctness, timing, baseline, recheck, profile, optimize
   */
  stage: string;
  message: string;
  /**
   * optimize: the optimizer's event (run_started, round_started, proposed, verified, note, recheck, finished)
   */
  event?: string;
  /**
   * optimize: the run's id in the workspace's store
   */
  runId?: number;
  round?: number;
  rounds?: number;
  candidates?: number;
  /**
   * optimize: the best verified speedup over eager PyTorch reached so far in this job; never decreases
   */
  bestSpeedupEager?: number;
  /**
   * optimize: when no point speedup is known (a timing was noisy), the best's range; the highest low end so far
   */
  bestSpeedupEagerRange?: SpeedupRange;
  /**
   * optimize: the median time of the fastest verified candidate
   */
  bestP50Us?: number;
  elapsedSeconds?: number;
  note?: string;
  /**
   * optimize: the candidate the event is about
   */
  candidateId?: number;
  /**
   * optimize: that candidate's status: pending, a verdict status (correct, incorrect, compile_error, runtime_error, timeout, rejected), no_code, llm_error
   */
  status?: string;
  /**
   * optimize, a verified correct candidate: its median time
   */
  p50Us?: number;
  /**
   * optimize, a verified correct candidate: eager PyTorch's time over its
   */
  speedupEager?: number;
  /**
   * optimize, a verified correct candidate whose timing or baseline was noisy: the speedup over eager as a range instead of speedupEager
   */
  speedupEagerRange?: SpeedupRange;
  /**
   * optimize, a verified correct candidate: torch.compile's time over its
   */
  speedupCompile?: number;
  /**
   * optimize, a verified correct candidate: the original kernel's time over its, when both times are quiet
   */
  speedupKernel?: number;
  /**
   * optimize, a verified correct candidate whose time or the original kernel's was noisy: the speedup over the original as a range instead of speedupKernel
   */
  speedupKernelRange?: SpeedupRange;
  [k: string]: unknown;
}
export interface ProposalWithDiff {
  uri: DocumentUri;
  /**
   * unified diff from the current buffer to the proposal (a/NAME, b/NAME); empty when equal
   */
  diff: string;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "ProposalParams".
 */
export interface ProposalParams {
  textDocument: TextDocumentIdentifier;
  /**
   * absent: the best proposal of the last run
   */
  id?: number;
  [k: string]: unknown;
}
/**
 * hone/result: what the server knows about an open kernel.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "KernelResult".
 */
export interface KernelResult {
  uri: DocumentUri;
  version: number;
  /**
   * the document version of the last finished build
   */
  builtVersion?: number;
  running: JobKind[];
  compile?: Compile;
  check?: Verdict;
  profile?: Verdict;
  optimize?: OptimizeResult;
  [k: string]: unknown;
}
/**
 * Counts by SASS metric name (smsp__sass_inst_executed: warp-level instructions executed; smsp__sass_thread_inst_executed: thread-level; smsp__sass_sectors_mem_global and its _ideal: the 32-byte sectors the global accesses touched, and would have touched perfectly coalesced).
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "SassCounts".
 */
export interface SassCounts {
  [k: string]: number;
}
/**
 * One line of a listing; SASS instructions carry their counts in the last profile of the same build.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "MachineCodeLine".
 */
export interface MachineCodeLine {
  text: string;
  /**
   * the source file of the line; empty when it maps to none
   */
  file: string;
  /**
   * 0-based source line; -1: none
   */
  line: number;
  /**
   * the source is the requested document
   */
  inFile: boolean;
  counters?: SassCounts;
  [k: string]: unknown;
}
/**
 * A source line's counts: the sums over the SASS instructions mapped to it.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "SourceLineCounters".
 */
export interface SourceLineCounters {
  file: string;
  /**
   * 0-based
   */
  line: number;
  inFile: boolean;
  counters: SassCounts;
  [k: string]: unknown;
}
/**
 * SASS only: the per-instruction counters of the last profile of this same build (same build key, so the same cubin), or why there are none.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "MachineCodeCounters".
 */
export interface MachineCodeCounters {
  /**
   * the counters' columns, in order; empty: none
   */
  metrics: string[];
  /**
   * the view's header: where the counters come from, or why there are none ("no profile of this build yet: run Profile to see per-line counters")
   */
  note: string;
  /**
   * ISO 8601 UTC of that profile
   */
  profiledAt?: string;
  sourceLines: SourceLineCounters[];
  [k: string]: unknown;
}
/**
 * The reply of workspace/executeCommand hone.showPtx / hone.showSass: one function's PTX or SASS, each line mapped to its source line (-lineinfo); SASS with the last profile's counters.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "MachineCode".
 */
export interface MachineCode {
  uri: DocumentUri;
  kind: 'ptx' | 'sass';
  /**
   * the function shown, mangled
   */
  symbol: string;
  /**
   * unqualified
   */
  name: string;
  /**
   * every function of the build, unqualified
   */
  functions: string[];
  /**
   * false: no source mapping (SASS from cuobjdump)
   */
  mapped: boolean;
  /**
   * the listing, one line per entry of lines
   */
  text: string;
  lines: MachineCodeLine[];
  counters?: MachineCodeCounters;
  /**
   * the annotated listing written to .hone/asm/ (source marks, counters)
   */
  path?: string;
  [k: string]: unknown;
}

/** The custom methods: name -> direction, kind, params and result types. */
export const HONE_METHODS = {
  'hone/check': {
    'direction': 'client->server',
    'kind': 'request',
    'params': '#/$defs/JobParams',
    'result': '#/$defs/JobFinished',
    'errors': [
      -32602,
      -32800,
      -32803
    ]
  },
  'hone/profile': {
    'direction': 'client->server',
    'kind': 'request',
    'params': '#/$defs/JobParams',
    'result': '#/$defs/JobFinished',
    'errors': [
      -32602,
      -32800,
      -32803
    ]
  },
  'hone/optimize': {
    'direction': 'client->server',
    'kind': 'request',
    'params': '#/$defs/JobParams',
    'result': '#/$defs/JobFinished',
    'errors': [
      -32602,
      -32800,
      -32803
    ]
  },
  'hone/result': {
    'direction': 'client->server',
    'kind': 'request',
    'params': '#/$defs/DocumentParams',
    'result': '#/$defs/KernelResult',
    'errors': [
      -32602
    ]
  },
  'hone/proposal': {
    'direction': 'client->server',
    'kind': 'request',
    'params': '#/$defs/ProposalParams',
    'result': '#/$defs/ProposalWithDiff',
    'errors': [
      -32602,
      -32803
    ]
  },
  'hone/waitIdle': {
    'direction': 'client->server',
    'kind': 'request',
    'params': '#/$defs/Empty',
    'result': '#/$defs/Null'
  },
  'hone/jobProgress': {
    'direction': 'server->client',
    'kind': 'notification',
    'params': '#/$defs/JobProgress'
  },
  'hone/jobFinished': {
    'direction': 'server->client',
    'kind': 'notification',
    'params': '#/$defs/JobFinished'
  }
} as const;
