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

export interface CandidateRow {
  id: string;
  run: string;
  round: number | null;
  status: VerdictStatus;
  speedup: number | null;
  speedupVsCurrent: number | null;
  p50Us: number | null;
  reason: string;
}

export interface ReportData {
  title: string;
  device?: string;
  roofline: RooflineData | { missing: string };
  curve: { byTime: XY[]; byCandidates: XY[] } | { missing: string };
  table: CandidateRow[];
  counts: Partial<Record<VerdictStatus, number>>;
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

/**
 * The best verified speedup as a step curve over elapsed seconds and over candidates tried. A
 * report whose best is null (nothing verified yet) adds no point; a later report never lowers it.
 */
export function shapeCurve(history: OptimizeProgress[]): ReportData['curve'] {
  const byTime: XY[] = [];
  const byCandidates: XY[] = [];
  let best = 0;
  for (const h of history) {
    if (!positive(h.bestSpeedup)) continue;
    const y = Math.max(best, h.bestSpeedup);
    if (y !== best || byTime.length === 0) {
      byTime.push({ x: h.elapsedS, y });
      byCandidates.push({ x: h.candidates, y });
      best = y;
    }
  }
  if (byTime.length === 0) {
    return { missing: history.length ? 'No candidate has been verified yet.' : 'No optimize run yet: run "hone: Optimize this kernel".' };
  }
  const last = history[history.length - 1];
  if (last.elapsedS > byTime[byTime.length - 1].x) byTime.push({ x: last.elapsedS, y: best });
  if (last.candidates > byCandidates[byCandidates.length - 1].x) byCandidates.push({ x: last.candidates, y: best });
  return { byTime, byCandidates };
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
  }));
}

export function shapeReport(input: ReportInput): ReportData {
  const counts: ReportData['counts'] = {};
  for (const c of input.candidates) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return {
    title: `hone report: ${input.kernelName}`,
    device: input.device,
    roofline: shapeRoofline(input.roofline),
    curve: shapeCurve(input.history),
    table: shapeTable(input.candidates),
    counts,
  };
}
