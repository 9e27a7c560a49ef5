// model.ts: the extension's own view of hone's results (proposals, optimizer progress, verdict
// summaries), independent of the wire shapes that lsp_ext.ts adapts into it.

export type VerdictStatus = 'correct' | 'incorrect' | 'compile_error' | 'runtime_error' | 'timeout' | 'rejected';

/** Measured speedups of one verified kernel: over eager PyTorch, over torch.compile, over the kernel it replaces. */
export interface Speedups {
  eager: number | null;
  compile: number | null;
  overCurrent: number | null;
  /** When a timing was noisy: the speedup over eager as a range, in place of `eager`. */
  eagerRange?: { low: number; high: number };
  /** When its time or the current kernel's was noisy: the speedup over it as a range, in place of `overCurrent`. */
  overCurrentRange?: { low: number; high: number };
}

/** One candidate kernel of an optimize run, as the user browses it. */
export interface Proposal {
  /** The kernel file the run optimized (a URI string). */
  kernelUri: string;
  runId: string;
  candidateId: string;
  status: VerdictStatus;
  /** Why it is not correct (a verdict's reason), or undefined. */
  reason?: string;
  speedup: Speedups;
  p50Us: number | null;
  round?: number;
  /** The full kernel source; fetched lazily for candidates that are only listed. */
  source?: string;
  /** A unified diff against the kernel the run started from, when the server gave one. */
  diff?: string;
  /**
   * Whether the server re-verified it on fresh seeds as its run's winner; false for the best
   * candidate of a run stopped before that (verified once). Undefined for table rows.
   */
  rechecked?: boolean;
}

/** One progress report of an optimize run. */
export interface OptimizeProgress {
  round: number;
  rounds: number;
  candidates: number;
  /** Best verified speedup over eager so far (null before the first verified candidate). */
  bestSpeedup: number | null;
  /** When no point is known (a noisy timing on a busy machine): the best's speedup as a range. */
  bestSpeedupRange?: { low: number; high: number } | null;
  /** That best candidate's median time. */
  bestP50Us: number | null;
  elapsedS: number;
  message?: string;
}
