// diff_title.test.ts: diff titles with measured speedups and the proposal document's URI.
import * as assert from 'node:assert/strict';
import type { Proposal } from '../src/model';
import { diffTitle, parseProposalQuery, pickLabel, proposalUriParts, speedupText } from '../src/diff_title';

const base: Proposal = {
  kernelUri: 'file:///w/my%20kernels/softmax.cu',
  runId: '7',
  candidateId: '12',
  status: 'correct',
  speedup: { eager: 2.13, compile: 1.31, overCurrent: 1.62 },
  p50Us: 41.23,
  round: 3,
};

describe('diff titles', () => {
  it('titles a verified proposal with what was measured', () => {
    assert.equal(diffTitle(base), 'softmax.cu ↔ proposal 12 (verified: 1.6× vs current · 2.1× eager · 1.3× compile · 41.2 µs)');
    assert.equal(speedupText({ ...base, speedup: { eager: 2, compile: null, overCurrent: null } }), '2.0× eager');
    assert.equal(diffTitle({ ...base, speedup: { eager: null, compile: null, overCurrent: null }, p50Us: null }), 'softmax.cu ↔ proposal 12 (verified)');
  });

  it('shows the speedup over the current kernel as a range when a time was noisy', () => {
    const noisy: Proposal = { ...base, speedup: { eager: 2.13, compile: null, overCurrent: null, overCurrentRange: { low: 1.12, high: 1.64 } } };
    assert.equal(diffTitle(noisy), 'softmax.cu ↔ proposal 12 (verified: 1.1–1.6× vs current (noisy) · 2.1× eager · 41.2 µs)');
    assert.equal(speedupText({ ...noisy, speedup: { ...noisy.speedup, overCurrent: 1.4 } }), '1.4× vs current · 2.1× eager', 'a point wins over a range');
  });

  it('says when the run was stopped before the proposal was re-verified', () => {
    assert.equal(diffTitle({ ...base, rechecked: false }), 'softmax.cu ↔ proposal 12 (verified once, run stopped: 1.6× vs current · 2.1× eager · 1.3× compile · 41.2 µs)');
    assert.match(diffTitle({ ...base, rechecked: true }), /\(verified: /);
  });

  it('never presents an unverified candidate as a proposal', () => {
    const t = diffTitle({ ...base, status: 'incorrect', reason: 'mismatch at out[0]' });
    assert.equal(t, 'softmax.cu ↔ candidate 12 (incorrect: mismatch at out[0])');
    assert.ok(!t.includes('×'));
    const row = pickLabel({ ...base, status: 'timeout', reason: 'deadline 30 s' });
    assert.equal(row.description, 'timeout');
    assert.match(row.detail, /deadline 30 s/);
  });

  it('round-trips the proposal URI and keeps the file name last for language detection', () => {
    const parts = proposalUriParts(base);
    assert.equal(parts.path, '/7/12/softmax.cu');
    assert.deepEqual(parseProposalQuery(parts.query), { kernelUri: base.kernelUri, runId: '7', candidateId: '12' });
    assert.equal(parseProposalQuery('kernel=x&run=1'), undefined);
    assert.deepEqual(pickLabel(base), { label: '$(pass) 12', description: '1.6× vs current · 2.1× eager · 1.3× compile · 41.2 µs', detail: 'run 7 · round 3' });
  });
});
