// proposal_store.ts: every candidate of every optimize run this session, per kernel file, so the
// best proposal can be shown and applied and all of them browsed after the run ends.
import type { OptimizeProgress, Proposal } from './model';

export interface RunRecord {
  runId: string;
  kernelUri: string;
  /** The kernel's text when the run started: Apply warns if the file has changed since. */
  baseSource: string;
  startedAt: number;
  finished: boolean;
  /** The server's id of the run (OptimizeResult.runId), once it answered. */
  serverRunId?: number;
  /** The starting kernel's measured time, when known (speedups over the current kernel). */
  baseP50Us: number | null;
  /** Progress reports in arrival order: the report's optimization curve. */
  progress: OptimizeProgress[];
  /** The run's candidates by verdict status, as the optimizer counted them (null until it ends). */
  counts: Record<string, number> | null;
  proposals: Map<string, Proposal>;
}

/**
 * The ranking key of a proposal: its speedup over the kernel it replaces when measured, else over
 * eager PyTorch. Only verified (status "correct") proposals have one.
 */
export function rankingSpeedup(p: Proposal): number | null {
  if (p.status !== 'correct') return null;
  const s = p.speedup.overCurrent ?? p.speedup.eager;
  return s !== null && Number.isFinite(s) && s > 0 ? s : null;
}

/** Verified first, fastest first; then the others in the order they were proposed. */
export function compareProposals(a: Proposal, b: Proposal): number {
  const ra = rankingSpeedup(a);
  const rb = rankingSpeedup(b);
  if (ra !== null && rb !== null) return rb - ra;
  if (ra !== null) return -1;
  if (rb !== null) return 1;
  return (a.round ?? 0) - (b.round ?? 0);
}

/** Lives in the extension host for the session; all calls come from its one thread. */
export class ProposalStore {
  private runs: RunRecord[] = [];
  private listeners: Array<() => void> = [];

  /** Called when anything changes (the status bar's context keys, the report view). */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  startRun(kernelUri: string, runId: string, baseSource: string, now = Date.now()): RunRecord {
    const existing = this.run(runId);
    if (existing) return existing;
    const run: RunRecord = { runId, kernelUri, baseSource, startedAt: now, finished: false, baseP50Us: null, progress: [], counts: null, proposals: new Map() };
    this.runs.push(run);
    this.changed();
    return run;
  }

  recordProgress(runId: string, p: OptimizeProgress): void {
    const run = this.run(runId);
    if (run) {
      run.progress.push(p);
      this.changed();
    }
  }

  finishRun(runId: string): void {
    const run = this.run(runId);
    if (run && !run.finished) {
      run.finished = true;
      this.changed();
    }
  }

  run(runId: string): RunRecord | undefined {
    return this.runs.find((r) => r.runId === runId);
  }

  /** Runs of one kernel, newest first. */
  runsOf(kernelUri: string): RunRecord[] {
    return this.runs.filter((r) => r.kernelUri === kernelUri).reverse();
  }

  /** Adds a candidate, or merges what is newly known about it (its source, a later verdict). */
  upsert(p: Proposal): Proposal {
    const run = this.run(p.runId) ?? this.startRun(p.kernelUri, p.runId, '');
    const old = run.proposals.get(p.candidateId);
    const merged: Proposal = old ? { ...old, ...definedFields(p) } : p;
    run.proposals.set(p.candidateId, merged);
    this.changed();
    return merged;
  }

  get(runId: string, candidateId: string): Proposal | undefined {
    return this.run(runId)?.proposals.get(candidateId);
  }

  /** Every candidate of a kernel (all runs), best first. */
  list(kernelUri: string): Proposal[] {
    return this.runsOf(kernelUri)
      .flatMap((r) => [...r.proposals.values()])
      .sort(compareProposals);
  }

  /** The fastest verified proposal of a kernel over all runs, or undefined. */
  best(kernelUri: string): Proposal | undefined {
    const top = this.list(kernelUri)[0];
    return top && rankingSpeedup(top) !== null ? top : undefined;
  }

  /** Kernels that have at least one verified proposal. */
  kernelsWithProposals(): string[] {
    return [...new Set(this.runs.map((r) => r.kernelUri))].filter((k) => this.best(k) !== undefined);
  }
}

function definedFields<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
