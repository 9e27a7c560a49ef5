// machine_code_text.ts: the text of the machine-code view (hone.showPtx / hone.showSass's
// MachineCode reply): for SASS a `//` header saying where the counters come from (the last
// profile of this same build) or why there are none, then every line with the instruction's
// counters in right-aligned columns before it; and the label of a source line's summed
// counters. No vscode import, so it is unit-tested; machine_code.ts shows it.
import type { MachineCode, SassCounts } from './wire';

export type { MachineCode };

/** Short column titles of hone's SASS metrics; the name without "smsp__sass_" for others. */
export function counterTitle(metric: string): string {
  const titles: Record<string, string> = {
    smsp__sass_inst_executed: 'warp inst',
    smsp__sass_thread_inst_executed: 'thread inst',
    smsp__sass_thread_inst_executed_pred_on: 'pred on',
    smsp__sass_sectors_mem_global: 'sectors',
    smsp__sass_sectors_mem_global_ideal: 'ideal',
  };
  return titles[metric] ?? metric.replace(/^smsp__sass_/, '');
}

/** 1234567 -> "1,234,567" (the same grouping as the server's .hone/asm listing). */
export function groupDigits(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export interface RenderedListing {
  text: string;
  /** Lines before the first listing line: listing line i is document line headerLines + i. */
  headerLines: number;
}

/** The view's document text. */
export function renderListing(listing: MachineCode): RenderedListing {
  const metrics = listing.counters?.metrics ?? [];
  const cell = (counts: SassCounts | undefined, m: string): string => (counts && typeof counts[m] === 'number' ? groupDigits(counts[m]) : '');
  const widths = metrics.map((m) => Math.max(counterTitle(m).length, ...listing.lines.map((l) => cell(l.counters, m).length)));
  const columns = (text: (i: number) => string): string =>
    metrics.length === 0 ? '' : metrics.map((_, i) => text(i).padStart(widths[i]) + '  ').join('') + '| ';
  const header: string[] = [];
  if (listing.kind === 'sass' && listing.counters?.note) header.push(`// ${listing.counters.note}`);
  if (metrics.length > 0) header.push(`// ${columns((i) => counterTitle(metrics[i]))}`);
  const body = listing.lines.map((l) => (metrics.length > 0 ? `   ${columns((i) => cell(l.counters, metrics[i]))}${l.text}` : l.text));
  return { text: [...header, ...body].join('\n') + '\n', headerLines: header.length };
}

/** "warp inst 1,024 · thread inst 32,768" for a source line's sums, in the listing's metric order. */
export function sourceLineLabel(counts: SassCounts, metrics: string[]): string {
  return metrics
    .filter((m) => typeof counts[m] === 'number')
    .map((m) => `${counterTitle(m)} ${groupDigits(counts[m])}`)
    .join(' · ');
}
