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
    form: 'raw' | 'torch' | 'unknown';
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
  speedup?: {
    eager?: number | null;
    compile?: number | null;
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
     * weak_task, constant_output, library_ops, speedup_over_10x, strides_differ, timing_noisy, no_sandbox, weak_sandbox, ...
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
    [k: string]: unknown;
  };
  /**
   * hone profile's counters, roofline and suggestions (profile.schema.json)
   */
  profile?: {
    [k: string]: unknown;
  };
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
 * One immutable result of checking a kernel against its reference: hone check --json, hone/result, the store. Units live in field names.
 */
export type Verdict1 = {
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
    form: 'raw' | 'torch' | 'unknown';
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
  speedup?: {
    eager?: number | null;
    compile?: number | null;
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
     * weak_task, constant_output, library_ops, speedup_over_10x, strides_differ, timing_noisy, no_sandbox, weak_sandbox, ...
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
    [k: string]: unknown;
  };
  /**
   * hone profile's counters, roofline and suggestions (profile.schema.json)
   */
  profile?: {
    [k: string]: unknown;
  };
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
 * initializationOptions, and the `hone` section of workspace/didChangeConfiguration. Changing python, device, arch, sandbox or seeds gives later jobs a new engine.
 *
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "Settings".
 */
export interface Settings {
  python?: string;
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
 * Per-request options. check: device, seeds, atol, rtol, timing, baselines. profile: metrics. optimize: device, samples, rounds, budgetSeconds, tokenBudget, tuner (true: the built-in tuner even when an LLM is configured).
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
 *
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
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "diagnostic".
 *
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
 *
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
 *
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
 *
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
 *
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
     * elements out of tolerance
     */
    count?: number;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `undefined`'s JSON-Schema
 * via the `definition` "timing".
 *
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
  [k: string]: unknown;
}
/**
 * This interface was referenced by `HoneLspProtocol`'s JSON-Schema
 * via the `definition` "ProfileOutcome".
 */
export interface ProfileOutcome {
  summary: string;
  verdict: Verdict1;
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
   * the id of this run's winner, null when nothing faster was verified
   */
  best: number | null;
  summary: string;
  error?: string;
  /**
   * the optimizer's own run record (hone optimize --json)
   */
  run?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * A verified, re-checked proposal from an optimizer run.
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
   * the current kernel's time over the proposal's
   */
  kernel?: number;
  [k: string]: unknown;
}
/**
 * The hone/jobFinished notification, also the result of a hone/check|profile|optimize request that ends with status done (other endings answer with an error).
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
 * hone/jobProgress: each stage of a job (also sent as $/progress reports when there is a progress token). Optimizer events add the round fields.
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
  round?: number;
  rounds?: number;
  candidates?: number;
  bestSpeedupEager?: number;
  bestP50Us?: number;
  elapsedSeconds?: number;
  note?: string;
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
