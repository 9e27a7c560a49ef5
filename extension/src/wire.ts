// wire.ts: hone's custom protocol as the extension reads it: the types generated from
// protocol/schema/lsp.schema.json (protocol/ts/hone-protocol.ts; a schema change that breaks the
// extension fails its type-check) and adapters from them into the extension's model. No vscode
// import, so the adapters are unit-tested; lsp_ext.ts binds the types to method names.
import type {
  CheckOutcome,
  JobFinished,
  JobProgress,
  KernelResult,
  OptimizeOutcome,
  OptimizeResult,
  Proposal as WireProposal,
  ProposalWithDiff,
  Verdict,
} from '../../protocol/ts/hone-protocol';
import type { OptimizeProgress, Proposal } from './model';
import type { RooflineInput, RooflineSample } from './report_data';

export type {
  DocumentParams,
  JobFinished,
  JobOptions,
  JobParams,
  JobProgress,
  KernelResult,
  MachineCode,
  OptimizeResult,
  ProposalParams,
  SassCounts,
  Settings as ServerSettings,
  Verdict,
} from '../../protocol/ts/hone-protocol';
export { HONE_METHODS } from '../../protocol/ts/hone-protocol';

/** hone/proposal's reply: a Proposal with the buffer's uri and the unified diff (the schema's allOf). */
export type ProposalReply = WireProposal & ProposalWithDiff;
export type { WireProposal };

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** The check verdict of a finished check or profile job, if the job ended with one. */
export function checkOutcome(f: JobFinished | null | undefined): CheckOutcome | undefined {
  const r = f?.result as Partial<CheckOutcome> | undefined;
  return r && typeof r === 'object' && r.verdict ? (r as CheckOutcome) : undefined;
}

/** The optimizer's result of a finished optimize job. */
export function optimizeOutcome(f: JobFinished | null | undefined): OptimizeResult | undefined {
  const r = f?.result as Partial<OptimizeOutcome> | undefined;
  return r && typeof r === 'object' && r.optimize ? r.optimize : undefined;
}

/**
 * What an optimize result says about its run besides the proposals: the starting kernel's
 * verified time and the run's candidates counted by status.
 */
export function runFacts(o: OptimizeResult): { baseP50Us: number | null; counts: Record<string, number> | null } {
  const baseP50Us = num(o.baselineP50Us);
  let counts: Record<string, number> | null = null;
  if (o.counts && typeof o.counts === 'object') {
    counts = Object.fromEntries(Object.entries(o.counts as Record<string, unknown>).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
  }
  return { baseP50Us, counts };
}

/** The line a finished check or profile shows: the kernel's name and the server's own summary. */
export function verdictLine(name: string, outcome: CheckOutcome): string {
  return `${name}: ${outcome.summary}`;
}

/** The newest verdict the server holds for a kernel: a profile's (it has counters) over a check's. */
export function latestVerdict(r: KernelResult | null | undefined): Verdict | undefined {
  return r?.profile ?? r?.check;
}

/**
 * A verified proposal as the model's Proposal. The speedup over the current kernel is the
 * server's alone: its `speedup.kernel` when both times were quiet, its `speedup.kernelRange` when a
 * noisy time left only a range (issue 14: never a point from a noisy number), else none (the
 * extension does not divide two medians whose noise it cannot see). `rechecked` is false for the
 * best-so-far of a stopped run.
 */
export function proposalFrom(kernelUri: string, w: WireProposal | ProposalReply): Proposal {
  const v = w.verdict;
  const p50 = num(v?.timing?.p50_us);
  const over = num(w.speedup?.kernel);
  const overRange = over === null ? rangeOf(w.speedup?.kernelRange) : null;
  return {
    kernelUri,
    runId: String(w.runId),
    candidateId: String(w.id),
    status: v?.status ?? 'rejected',
    reason: v ? v.reason : 'the server sent no verdict for this candidate',
    p50Us: p50,
    speedup: {
      eager: num(w.speedup?.eager ?? v?.speedup?.eager),
      compile: num(w.speedup?.compile ?? v?.speedup?.compile),
      overCurrent: over,
      ...(overRange ? { overCurrentRange: overRange } : {}),
    },
    source: w.text,
    diff: typeof (w as ProposalReply).diff === 'string' ? (w as ProposalReply).diff : undefined,
    rechecked: w.rechecked !== false,
  };
}

/** A speedup range {low, high} with both ends finite and low <= high, else null. */
function rangeOf(r: { low?: unknown; high?: unknown } | undefined): { low: number; high: number } | null {
  const low = num(r?.low);
  const high = num(r?.high);
  return low !== null && high !== null && low <= high ? { low, high } : null;
}

/** Optimize progress from a hone/jobProgress notification (its note as the message); undefined when it names no round. */
export function optimizeProgressFrom(n: JobProgress, elapsedS: number): OptimizeProgress | undefined {
  if (n.kind !== 'optimize' || typeof n.round !== 'number') return undefined;
  const range = rangeOf(n.bestSpeedupEagerRange);
  return {
    round: n.round,
    rounds: num(n.rounds) ?? 0,
    candidates: num(n.candidates) ?? 0,
    bestSpeedup: num(n.bestSpeedupEager),
    bestP50Us: num(n.bestP50Us),
    elapsedS: num(n.elapsedSeconds) ?? elapsedS,
    message: n.note || undefined,
    ...(range ? { bestSpeedupRange: range } : {}),
  };
}

/**
 * A candidate the optimizer reported in a hone/jobProgress event ("proposed", "verified"), when
 * the event names it (candidateId and a verdict status), as a row for the candidate table of the
 * extension's run `runId` (the server's run id is not the extension's). A verified correct
 * candidate carries its own time and speedups; the reason of a failed one is the event's note.
 */
export function candidateFromProgress(kernelUri: string, runId: string, n: JobProgress): Proposal | undefined {
  const id = n.candidateId;
  const status = n.status;
  if (typeof id !== 'number' || typeof status !== 'string') return undefined;
  const known = ['correct', 'incorrect', 'compile_error', 'runtime_error', 'timeout', 'rejected'];
  if (!known.includes(status)) return undefined;
  const eagerRange = num(n.speedupEager) === null ? rangeOf(n.speedupEagerRange) : null;
  const overCurrentRange = num(n.speedupKernel) === null ? rangeOf(n.speedupKernelRange) : null;
  return {
    kernelUri,
    runId,
    candidateId: String(id),
    status: status as Proposal['status'],
    reason: status === 'correct' ? undefined : n.note || undefined,
    round: n.round,
    p50Us: num(n.p50Us),
    speedup: {
      eager: num(n.speedupEager),
      compile: num(n.speedupCompile),
      overCurrent: num(n.speedupKernel),
      ...(eagerRange ? { eagerRange } : {}),
      ...(overCurrentRange ? { overCurrentRange } : {}),
    },
  };
}

/**
 * The progress to show after `next`: the best speedup never goes down within a run (a candidate
 * that later fails its re-verification does not take back what was shown; the final result says).
 */
export function mergeProgress(previous: OptimizeProgress | undefined, next: OptimizeProgress): OptimizeProgress {
  const before = previous?.bestSpeedup ?? null;
  if (before === null) {
    // Only ranges so far (or nothing): the range with the highest low end stays until a point comes.
    const range = previous?.bestSpeedupRange ?? null;
    const nextRange = next.bestSpeedupRange ?? null;
    if (next.bestSpeedup !== null || range === null || (nextRange !== null && nextRange.low >= range.low)) return next;
    return { ...next, bestSpeedupRange: range };
  }
  if (next.bestSpeedup !== null && next.bestSpeedup >= before) return next;
  return { ...next, bestSpeedup: before, bestSpeedupRange: null, bestP50Us: previous?.bestP50Us ?? next.bestP50Us };
}

/** The parts of a profile (profile.schema.json) the report reads. */
interface RooflinePoint {
  label?: string;
  seconds?: number;
  dram_bytes?: number;
  flops?: number;
  precision?: string | null;
  peak_bytes_per_s?: number;
  peak_flops_per_s?: number;
}
interface ProfileParts {
  ceilings?: { dram_bytes_per_s?: { value?: number }; flops_per_s?: Record<string, { value?: number }> };
  candidate?: { roofline?: RooflinePoint | null };
  reference?: { roofline?: RooflinePoint | null } | null;
}

/**
 * The roofline of a profiled kernel: the kernel and the PyTorch reference as the profiler
 * measured them, and the best proposal at its verified time with the kernel's FLOPs and bytes.
 */
export function rooflineInput(v: Verdict, best: Proposal | undefined): RooflineInput | undefined {
  const p = v.profile as ProfileParts | undefined;
  const k = p?.candidate?.roofline;
  if (!p || !k) return undefined;
  const precision = k.precision ?? undefined;
  const flopsCeilings = p.ceilings?.flops_per_s ?? {};
  const peakFlops = num(k.peak_flops_per_s) ?? num(precision ? flopsCeilings[precision]?.value : undefined);
  const peakBytes = num(k.peak_bytes_per_s) ?? num(p.ceilings?.dram_bytes_per_s?.value);
  const samples: RooflineSample[] = [];
  const add = (label: string, kind: RooflineSample['kind'], r: RooflinePoint, timeUs: number | null): void => {
    if (timeUs !== null) samples.push({ label, kind, flops: num(r.flops) ?? 0, dramBytes: num(r.dram_bytes) ?? 0, timeUs });
  };
  const secondsToUs = (s: unknown): number | null => (num(s) !== null ? (s as number) * 1e6 : null);
  add('kernel', 'kernel', k, secondsToUs(k.seconds));
  const ref = p.reference?.roofline;
  if (ref) add('PyTorch reference', 'baseline', ref, secondsToUs(ref.seconds));
  if (best?.p50Us) add(`best proposal ${best.candidateId} (kernel's FLOPs and bytes)`, 'proposal', k, best.p50Us);
  return { peakFlopsPerS: peakFlops, peakDramBytesPerS: peakBytes, precision, samples };
}
