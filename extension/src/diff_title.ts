// diff_title.ts: names for what a proposal diff shows: the diff editor's title with the measured
// speedups, the quick-pick rows, and the read-only proposal document's URI (path + query).
import type { Proposal } from './model';
import { formatMicros, formatSpeedup, formatSpeedupRange } from './status_text';

export const PROPOSAL_SCHEME = 'hone-proposal';

function basename(uriOrPath: string): string {
  const clean = uriOrPath.split(/[?#]/)[0];
  return decodeURIComponent(clean.slice(clean.lastIndexOf('/') + 1));
}

/**
 * "1.6× vs current · 2.1× eager · 1.3× compile", only the measured parts; "1.1–1.6× vs current
 * (noisy)" when a noisy time left the speedup over the current kernel only a range.
 */
export function speedupText(p: Proposal): string {
  const parts: string[] = [];
  if (p.speedup.overCurrent !== null) parts.push(`${formatSpeedup(p.speedup.overCurrent)} vs current`);
  else if (p.speedup.overCurrentRange) parts.push(`${formatSpeedupRange(p.speedup.overCurrentRange)} vs current (noisy)`);
  if (p.speedup.eager !== null) parts.push(`${formatSpeedup(p.speedup.eager)} eager`);
  if (p.speedup.compile !== null) parts.push(`${formatSpeedup(p.speedup.compile)} compile`);
  return parts.join(' · ');
}

/** How a correct proposal was verified: "verified", or "verified once, run stopped" before its re-verification. */
export function verifiedWord(p: Proposal): string {
  return p.rechecked === false ? 'verified once, run stopped' : 'verified';
}

/** The diff editor title: "softmax.cu ↔ proposal 12 (verified: 1.6× vs current · 2.1× eager · 41.2 µs)". */
export function diffTitle(p: Proposal): string {
  const name = basename(p.kernelUri);
  if (p.status !== 'correct') return `${name} ↔ candidate ${p.candidateId} (${p.status}${p.reason ? `: ${p.reason}` : ''})`;
  const measured = [speedupText(p), p.p50Us !== null ? formatMicros(p.p50Us) : ''].filter((s) => s).join(' · ');
  return `${name} ↔ proposal ${p.candidateId} (${verifiedWord(p)}${measured ? `: ${measured}` : ''})`;
}

/** A row of the "Browse proposals" quick pick. */
export function pickLabel(p: Proposal): { label: string; description: string; detail: string } {
  const ok = p.status === 'correct';
  return {
    label: `${ok ? '$(pass)' : '$(error)'} ${p.candidateId}`,
    description: ok ? [speedupText(p), p.p50Us !== null ? formatMicros(p.p50Us) : ''].filter((s) => s).join(' · ') : p.status,
    detail: [`run ${p.runId}`, p.round !== undefined ? `round ${p.round}` : '', ok ? '' : p.reason ?? ''].filter((s) => s).join(' · '),
  };
}

/** The read-only document's path and query for a proposal: the kernel's file name stays last so the language is detected. */
export function proposalUriParts(p: Pick<Proposal, 'kernelUri' | 'runId' | 'candidateId'>): { path: string; query: string } {
  const name = basename(p.kernelUri);
  const query = new URLSearchParams({ kernel: p.kernelUri, run: p.runId, candidate: p.candidateId }).toString();
  return { path: `/${encodeURIComponent(p.runId)}/${encodeURIComponent(p.candidateId)}/${name}`, query };
}

/** Inverse of proposalUriParts (from the URI's query); undefined for a query that is not ours. */
export function parseProposalQuery(query: string): { kernelUri: string; runId: string; candidateId: string } | undefined {
  const q = new URLSearchParams(query);
  const kernelUri = q.get('kernel');
  const runId = q.get('run');
  const candidateId = q.get('candidate');
  if (!kernelUri || !runId || !candidateId) return undefined;
  return { kernelUri, runId, candidateId };
}
