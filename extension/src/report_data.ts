// report_data.ts: shapes what hone measured into what the report page draws: the roofline
// (ceilings and the kernel, baseline and best-proposal points), the optimization curve (best
// verified speedup against time and against candidates) and the candidate table. Pure; shared by
// the extension (which shapes) and the page (which only reads the types).
import type { OptimizeProgress, Proposal, VerdictStatus } from './model';

/** Work and time of one kernel run, as the profiler measured or the task implies. */
export interface RooflineSample {
  label: string;
  kind: 'kernel' | 'baseline' | 'proposal';
  flops: number;
  dramBytes: number;
  timeUs: number;
}

export interface RooflineInput {
  peakFlopsPerS: number | null;
  peakDramBytesPerS: number | null;
  /** Which peak: "fp32", "tf32 tensor", ... */
  precision?: string;
  samples: RooflineSample[];
}

export interface ReportInput {
  kernelName: string;
  device?: string;
  roofline?: RooflineInput;
  /** Progress reports in arrival order (the curve). */
  history: OptimizeProgress[];
  /** The starting kernel's verified median time, when known: the curve's second series. */
  baseP50Us: number | null;
  /** Candidates by status as the optimizer counted them (all of them, verified or not); null: count the table. */
  counts?: Record<string, number> | null;
  candidates: Proposal[];
}

export interface XY {
  x: number;
  y: number;
}

export interface RooflinePoint extends XY {
  label: string;
  kind: RooflineSample['kind'];
  /** Share of the roof under this point (0..1). */
  ofRoof: number;
}

export interface RooflineData {
  /** The roof polyline, log-log: bandwidth slope to the ridge point, then the compute ceiling. */
  roof: XY[];
  ridgeIntensity: number;
  points: RooflinePoint[];
  precision?: string;
}

/** One line of the optimization curve, as a step function of elapsed seconds and of candidates tried. */
export interface CurveSeries {
  label: string;
  byTime: XY[];
  byCandidates: XY[];
}

export interface CandidateRow {
  id: string;
  run: string;
  round: number | null;
  status: VerdictStatus;
  speedup: number | null;
  speedupVsCurrent: number | null;
  p50Us: number | null;
  reason: string;
  /** A noisy candidate's speedup over eager as a range (then `speedup` is null). */
  speedupRange?: { low: number; high: number };
  /** Its speedup over the current kernel as a range, when a time was noisy (then `speedupVsCurrent` is null). */
  speedupVsCurrentRange?: { low: number; high: number };
}

export interface ReportData {
  title: string;
  device?: string;
  roofline: RooflineData | { missing: string };
  curve: { series: CurveSeries[] } | { missing: string };
  table: CandidateRow[];
  counts: Record<string, number>;
}

const positive = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;

/** Arithmetic intensity (FLOP/byte) and achieved FLOP/s of each sample, under the roof. */
export function shapeRoofline(r: RooflineInput | undefined): RooflineData | { missing: string } {
  if (!r) return { missing: 'No profile yet: run "hone: Profile this kernel" to place the kernel on the roofline.' };
  if (!positive(r.peakFlopsPerS) || !positive(r.peakDramBytesPerS)) {
    return { missing: 'The device has no peak compute or bandwidth figures, so there is no roof to draw.' };
  }
  const peakF = r.peakFlopsPerS;
  const peakB = r.peakDramBytesPerS;
  const ridge = peakF / peakB;
  const points: RooflinePoint[] = [];
  for (const s of r.samples) {
    if (!positive(s.flops) || !positive(s.dramBytes) || !positive(s.timeUs)) continue;
    const x = s.flops / s.dramBytes;
    const y = s.flops / (s.timeUs * 1e-6);
    points.push({ x, y, label: s.label, kind: s.kind, ofRoof: y / Math.min(peakF, peakB * x) });
  }
  if (points.length === 0) {
    return { missing: 'The profile has no FLOP and DRAM-byte counts for this kernel, so it has no roofline position.' };
  }
  const xs = points.map((p) => p.x).concat([ridge]);
  const xMin = 10 ** Math.floor(Math.log10(Math.min(...xs)) - 1);
  const xMax = 10 ** Math.ceil(Math.log10(Math.max(...xs)) + 1);
  return {
    roof: [
      { x: xMin, y: peakB * xMin },
      { x: ridge, y: peakF },
      { x: xMax, y: peakF },
    ],
    ridgeIntensity: ridge,
    points,
    precision: r.precision,
  };
}

/** `value` over the reports as steps (a point where it changes, and one at the last report); undefined when it never has one. */
function stepSeries(label: string, history: OptimizeProgress[], value: (h: OptimizeProgress) => number | null): CurveSeries | undefined {
  const byTime: XY[] = [];
  const byCandidates: XY[] = [];
  let current: number | null = null;
  for (const h of history) {
    const v = value(h);
    if (!positive(v) || v === current) continue;
    current = v;
    byTime.push({ x: h.elapsedS, y: v });
    byCandidates.push({ x: h.candidates, y: v });
  }
  if (current === null) return undefined;
  const last = history[history.length - 1];
  if (last.elapsedS > byTime[byTime.length - 1].x) byTime.push({ x: last.elapsedS, y: current });
  if (last.candidates > byCandidates[byCandidates.length - 1].x) byCandidates.push({ x: last.candidates, y: current });
  return { label, byTime, byCandidates };
}

/**
 * The optimizer's best verified candidate over time and candidates: its speedup over eager
 * PyTorch, and over the starting kernel when that kernel's time is known. Drawn as reported, not
 * as a running maximum: re-verification on fresh seeds can lower the best, and the curve shows it.
 */
export function shapeCurve(history: OptimizeProgress[], baseP50Us: number | null): ReportData['curve'] {
  const series: CurveSeries[] = [];
  const eager = stepSeries('over eager PyTorch', history, (h) => h.bestSpeedup);
  if (eager) series.push(eager);
  if (positive(baseP50Us)) {
    const kernel = stepSeries('over the starting kernel', history, (h) => (positive(h.bestP50Us) ? baseP50Us / h.bestP50Us : null));
    if (kernel) series.push(kernel);
  }
  if (series.length === 0) {
    return { missing: history.length ? 'No candidate has been verified yet.' : 'No optimize run yet: run "hone: Optimize this kernel".' };
  }
  return { series };
}

/** One row per candidate, verified fastest first (the store's order is kept). */
export function shapeTable(candidates: Proposal[]): CandidateRow[] {
  return candidates.map((p) => ({
    id: p.candidateId,
    run: p.runId,
    round: p.round ?? null,
    status: p.status,
    speedup: p.status === 'correct' ? p.speedup.eager : null,
    speedupVsCurrent: p.status === 'correct' ? p.speedup.overCurrent : null,
    p50Us: p.status === 'correct' ? p.p50Us : null,
    reason: p.reason ?? '',
    ...(p.status === 'correct' && p.speedup.eager === null && p.speedup.eagerRange ? { speedupRange: p.speedup.eagerRange } : {}),
    ...(p.status === 'correct' && p.speedup.overCurrent === null && p.speedup.overCurrentRange
      ? { speedupVsCurrentRange: p.speedup.overCurrentRange }
      : {}),
  }));
}

export function shapeReport(input: ReportInput): ReportData {
  let counts: ReportData['counts'] = {};
  if (input.counts) counts = { ...input.counts };
  else for (const c of input.candidates) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return {
    title: `hone report: ${input.kernelName}`,
    device: input.device,
    roofline: shapeRoofline(input.roofline),
    curve: shapeCurve(input.history, input.baseP50Us),
    table: shapeTable(input.candidates),
    counts,
  };
}
