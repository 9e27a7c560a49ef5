// report_data.test.ts: shaping measurements into the roofline, the optimization curve and the table.
import * as assert from 'node:assert/strict';
import type { Proposal } from '../src/model';
import { shapeCurve, shapeReport, shapeRoofline, shapeTable } from '../src/report_data';

describe('report data', () => {
  it('places kernels under the roof with the right intensity and share of the roof', () => {
    // H200-like: 60 TFLOP/s fp32, 4.8 TB/s: ridge at 12.5 FLOP/byte.
    const r = shapeRoofline({
      peakFlopsPerS: 60e12,
      peakDramBytesPerS: 4.8e12,
      precision: 'fp32',
      samples: [
        { label: 'softmax.cu', kind: 'kernel', flops: 1e9, dramBytes: 4e9, timeUs: 1000 },
        { label: 'eager', kind: 'baseline', flops: 1e9, dramBytes: 8e9, timeUs: 2000 },
        { label: 'no counters', kind: 'proposal', flops: 0, dramBytes: 1, timeUs: 1 },
      ],
    });
    assert.ok(!('missing' in r));
    assert.equal(r.ridgeIntensity, 12.5);
    assert.equal(r.points.length, 2, 'a sample without counts has no position');
    const k = r.points[0];
    assert.equal(k.x, 0.25);
    assert.equal(k.y, 1e12);
    // Memory-bound: roof at 0.25 FLOP/B is 1.2 TFLOP/s.
    assert.ok(Math.abs(k.ofRoof - 1e12 / 1.2e12) < 1e-12);
    assert.deepEqual(r.roof[1], { x: 12.5, y: 60e12 });
    assert.ok(r.roof[0].x < 0.125 && r.roof[0].y === 4.8e12 * r.roof[0].x);
    assert.ok(r.roof[2].x > 12.5 && r.roof[2].y === 60e12);
  });

  it('says why there is no roofline', () => {
    assert.match((shapeRoofline(undefined) as { missing: string }).missing, /Profile this kernel/);
    assert.match((shapeRoofline({ peakFlopsPerS: null, peakDramBytesPerS: 1, samples: [] }) as { missing: string }).missing, /no peak/);
    const noPts = shapeRoofline({ peakFlopsPerS: 1, peakDramBytesPerS: 1, samples: [] }) as { missing: string };
    assert.match(noPts.missing, /no FLOP and DRAM-byte counts/);
  });

  it('draws the best verified speedup as a non-decreasing step curve', () => {
    const c = shapeCurve([
      { round: 1, rounds: 3, candidates: 2, bestSpeedup: null, elapsedS: 1 },
      { round: 1, rounds: 3, candidates: 4, bestSpeedup: 1.2, elapsedS: 5 },
      { round: 2, rounds: 3, candidates: 8, bestSpeedup: 1.2, elapsedS: 9 },
      { round: 2, rounds: 3, candidates: 10, bestSpeedup: 1.1, elapsedS: 10 },
      { round: 3, rounds: 3, candidates: 12, bestSpeedup: 1.9, elapsedS: 14 },
      { round: 3, rounds: 3, candidates: 15, bestSpeedup: 1.9, elapsedS: 20 },
    ]);
    assert.ok(!('missing' in c));
    assert.deepEqual(c.byTime, [
      { x: 5, y: 1.2 },
      { x: 14, y: 1.9 },
      { x: 20, y: 1.9 },
    ]);
    assert.deepEqual(c.byCandidates, [
      { x: 4, y: 1.2 },
      { x: 12, y: 1.9 },
      { x: 15, y: 1.9 },
    ]);
    assert.match((shapeCurve([]) as { missing: string }).missing, /No optimize run/);
    assert.match((shapeCurve([{ round: 1, rounds: 1, candidates: 3, bestSpeedup: null, elapsedS: 2 }]) as { missing: string }).missing, /verified/);
  });

  it('tabulates candidates without showing speed for unverified ones, and counts statuses', () => {
    const cands: Proposal[] = [
      { kernelUri: 'k', runId: 'r', candidateId: '1', status: 'correct', speedup: { eager: 2, compile: 1, overCurrent: 1.5 }, p50Us: 5, round: 1 },
      { kernelUri: 'k', runId: 'r', candidateId: '2', status: 'rejected', reason: 'below the physical floor', speedup: { eager: 90, compile: null, overCurrent: null }, p50Us: 0.1 },
    ];
    const rows = shapeTable(cands);
    assert.deepEqual(rows[0], { id: '1', run: 'r', round: 1, status: 'correct', speedup: 2, speedupVsCurrent: 1.5, p50Us: 5, reason: '' });
    assert.deepEqual(rows[1], { id: '2', run: 'r', round: null, status: 'rejected', speedup: null, speedupVsCurrent: null, p50Us: null, reason: 'below the physical floor' });
    const rep = shapeReport({ kernelName: 'softmax.cu', history: [], candidates: cands });
    assert.deepEqual(rep.counts, { correct: 1, rejected: 1 });
    assert.equal(rep.title, 'hone report: softmax.cu');
  });
});
