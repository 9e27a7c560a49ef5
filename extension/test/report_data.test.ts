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

  it('draws the optimizer\'s best verified speedups as steps over time and candidates, drops included', () => {
    const h = (round: number, candidates: number, best: number | null, p50: number | null, t: number) => ({
      round,
      rounds: 3,
      candidates,
      bestSpeedup: best,
      bestP50Us: p50,
      elapsedS: t,
    });
    const c = shapeCurve(
      [h(1, 2, null, null, 1), h(1, 4, 1.2, 50, 5), h(2, 8, 1.2, 50, 9), h(2, 10, 1.1, 55, 10), h(3, 12, 1.9, 30, 14), h(3, 15, 1.9, 30, 20)],
      60,
    );
    assert.ok(!('missing' in c));
    assert.equal(c.series.length, 2);
    const [eager, kernel] = c.series;
    assert.equal(eager.label, 'over eager PyTorch');
    assert.deepEqual(eager.byTime, [
      { x: 5, y: 1.2 },
      { x: 10, y: 1.1 },
      { x: 14, y: 1.9 },
      { x: 20, y: 1.9 },
    ]);
    assert.deepEqual(eager.byCandidates, [
      { x: 4, y: 1.2 },
      { x: 10, y: 1.1 },
      { x: 12, y: 1.9 },
      { x: 15, y: 1.9 },
    ]);
    assert.equal(kernel.label, 'over the starting kernel');
    assert.deepEqual(kernel.byTime, [
      { x: 5, y: 1.2 },
      { x: 10, y: 60 / 55 },
      { x: 14, y: 2 },
      { x: 20, y: 2 },
    ]);
    const noBase = shapeCurve([h(1, 4, 1.2, 50, 5)], null);
    assert.ok(!('missing' in noBase) && noBase.series.length === 1, 'no starting time: only the eager series');
    assert.match((shapeCurve([], null) as { missing: string }).missing, /No optimize run/);
    assert.match((shapeCurve([h(1, 3, null, null, 2)], 10) as { missing: string }).missing, /verified/);
  });

  it('tabulates candidates without showing speed for unverified ones, and counts statuses', () => {
    const cands: Proposal[] = [
      { kernelUri: 'k', runId: 'r', candidateId: '1', status: 'correct', speedup: { eager: 2, compile: 1, overCurrent: 1.5 }, p50Us: 5, round: 1 },
      { kernelUri: 'k', runId: 'r', candidateId: '2', status: 'rejected', reason: 'below the physical floor', speedup: { eager: 90, compile: null, overCurrent: null }, p50Us: 0.1 },
    ];
    const rows = shapeTable(cands);
    assert.deepEqual(rows[0], { id: '1', run: 'r', round: 1, status: 'correct', speedup: 2, speedupVsCurrent: 1.5, p50Us: 5, reason: '' });
    assert.deepEqual(rows[1], { id: '2', run: 'r', round: null, status: 'rejected', speedup: null, speedupVsCurrent: null, p50Us: null, reason: 'below the physical floor' });
    const rep = shapeReport({ kernelName: 'softmax.cu', history: [], baseP50Us: null, candidates: cands });
    assert.deepEqual(rep.counts, { correct: 1, rejected: 1 });
    const counted = shapeReport({ kernelName: 'k', history: [], baseP50Us: null, candidates: cands, counts: { correct: 4, incorrect: 2 } });
    assert.deepEqual(counted.counts, { correct: 4, incorrect: 2 }, 'the optimizer\'s counts cover candidates the table does not list');
    assert.equal(rep.title, 'hone report: softmax.cu');
    const noisy: Proposal = { kernelUri: 'k', runId: 'r', candidateId: '3', status: 'correct', speedup: { eager: null, compile: null, overCurrent: 1.2, eagerRange: { low: 1.4, high: 2.1 } }, p50Us: 6 };
    assert.deepEqual(shapeTable([noisy])[0].speedupRange, { low: 1.4, high: 2.1 }, 'a noisy candidate shows its range');
    const noisyKernel: Proposal = { ...noisy, speedup: { eager: 2, compile: null, overCurrent: null, overCurrentRange: { low: 1.1, high: 1.6 } } };
    assert.deepEqual(shapeTable([noisyKernel])[0].speedupVsCurrentRange, { low: 1.1, high: 1.6 });
    assert.equal(shapeTable([noisy])[0].speedupVsCurrentRange, undefined, 'a point over the current kernel has no range');
  });
});
