// status_text.ts: the words and numbers hone shows in the status bar and notifications while an
// optimize runs ("round 3/8 · best 2.1× · 41 candidates"); verdicts are the server's own words.
import type { OptimizeProgress } from './model';

/** 2.13 -> "2.1×", 0.873 -> "0.87×", 14.6 -> "15×"; null/NaN -> "–". */
export function formatSpeedup(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x) || x <= 0) return '–';
  if (x >= 10) return `${Math.round(x)}×`;
  if (x >= 1) return `${x.toFixed(1)}×`;
  return `${x.toFixed(2)}×`;
}

/** {low: 1.43, high: 2.1} -> "1.4–2.1×" (a speedup known only as a range: a timing was noisy). */
export function formatSpeedupRange(r: { low: number; high: number }): string {
  return `${formatSpeedup(r.low).replace(/×$/, '')}–${formatSpeedup(r.high)}`;
}

/** Microseconds with a unit that keeps 3 significant digits: 41.23 -> "41.2 µs", 12345 -> "12.3 ms". */
export function formatMicros(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us) || us < 0) return '–';
  const sig = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  if (us >= 1e6) return `${sig(us / 1e6)} s`;
  if (us >= 1e3) return `${sig(us / 1e3)} ms`;
  return `${sig(us)} µs`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The status bar text of a running optimize: "round 3/8 · best 2.1× · 41 candidates". */
export function optimizeStatusText(p: OptimizeProgress): string {
  const round = p.rounds > 0 ? `round ${Math.min(p.round, p.rounds)}/${p.rounds}` : `round ${p.round}`;
  const range = p.bestSpeedupRange;
  const best =
    p.bestSpeedup !== null
      ? `best ${formatSpeedup(p.bestSpeedup)}`
      : range
        ? `best ${formatSpeedupRange(range)} (noisy)`
        : p.bestP50Us !== null
          ? `best ${formatMicros(p.bestP50Us)}`
          : 'no verified candidate yet';
  return `${round} · ${best} · ${plural(p.candidates, 'candidate')}`;
}

/** The notification line under "hone: optimizing softmax.cu": the status text and elapsed time. */
export function optimizeNotificationText(p: OptimizeProgress): string {
  const mins = Math.floor(p.elapsedS / 60);
  const secs = Math.floor(p.elapsedS % 60);
  const elapsed = mins > 0 ? `${mins} min ${secs} s` : `${secs} s`;
  return `${optimizeStatusText(p)} · ${elapsed}${p.message ? ` · ${p.message}` : ''}`;
}
