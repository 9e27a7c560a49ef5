// wire.test.ts: adapting hone-server's replies (protocol/schema/lsp.schema.json: verdicts, job
// results, proposals, progress) into the extension's model.
import * as assert from 'node:assert/strict';
import {
  candidateFromProgress,
  checkOutcome,
  latestVerdict,
  optimizeOutcome,
  mergeProgress,
  optimizeProgressFrom,
  proposalFrom,
  rooflineInput,
  runFacts,
  verdictLine,
  type JobProgress,
  type Verdict,
} from '../src/wire';

function verdict(over: Partial<Verdict> = {}): Verdict {
  return {
    schema_version: 1,
    status: 'correct',
    kernel: { path: '/w/k.cu', hash: 'h', form: 'raw', language: 'cuda' },
    task: { path: '/w/k.py', hash: 't' },
    device: { kind: 'cuda', name: 'NVIDIA H200' },
    compile: { ok: true, diagnostics: [] },
    flags: [],
    sandbox: { mode: 'bwrap' },
    timing: { p50_us: 20, p10_us: 19, p90_us: 22, reps: 100, method: 'cuda_events_l2_flush' },
    speedup: { eager: 2.5, compile: null },
    ...over,
  } as Verdict;
}

const progress = (over: Partial<JobProgress>): JobProgress => ({ jobId: 1, kind: 'optimize', uri: 'file:///k.cu', stage: 'optimize', message: '', ...over });

describe('wire adapters', () => {
  it('shows the server\'s summary of a verdict, word for word, whatever the status', () => {
    const correct = { summary: '✓ correct · 20.0 µs · 2.5× eager', verdict: verdict() };
    assert.equal(verdictLine('k.cu', correct), 'k.cu: ✓ correct · 20.0 µs · 2.5× eager');
    const incorrect = { summary: '✗ incorrect: out[3,17] got 0.51, expected 0.5 (trial 2, seed 7)', verdict: verdict({ status: 'incorrect', reason: 'x' }) };
    assert.equal(verdictLine('k.cu', incorrect), 'k.cu: ✗ incorrect: out[3,17] got 0.51, expected 0.5 (trial 2, seed 7)');
    const compile = { summary: '✗ compile error: k.cu:3:5: expected \';\'', verdict: verdict({ status: 'compile_error', reason: 'nvcc: 2 errors', timing: undefined, speedup: undefined }) };
    assert.equal(verdictLine('k.cu', compile), "k.cu: ✗ compile error: k.cu:3:5: expected ';'", 'the extension composes no words of its own');
  });

  it('reads job results: a check outcome, an optimize outcome, or neither', () => {
    const v = verdict();
    assert.equal(checkOutcome({ jobId: 1, kind: 'check', uri: 'u', status: 'done', result: { summary: 's', verdict: v } })?.verdict, v);
    assert.equal(checkOutcome({ jobId: 1, kind: 'check', uri: 'u', status: 'done' }), undefined);
    assert.equal(checkOutcome(undefined), undefined);
    const opt = { runId: 3, status: 'finished' as const, stopReason: 'rounds', candidates: 4, rounds: 2, elapsedSeconds: 9, proposals: [], best: null, summary: 'no faster kernel' };
    assert.equal(optimizeOutcome({ jobId: 2, kind: 'optimize', uri: 'u', status: 'done', result: { summary: 's', optimize: opt } }), opt);
    assert.equal(optimizeOutcome({ jobId: 2, kind: 'optimize', uri: 'u', status: 'done', result: { summary: 's', verdict: v } }), undefined);
  });

  it('reads the starting kernel\'s time and the status counts from the optimize result', () => {
    const base = { runId: 1, status: 'finished' as const, stopReason: 'rounds', candidates: 5, rounds: 2, elapsedSeconds: 9, proposals: [], best: null, summary: '' };
    const counts = { correct: 3, incorrect: 1, compile_error: 1, bogus: 'x' } as unknown as Record<string, number>;
    assert.deepEqual(runFacts({ ...base, baselineP50Us: 17285, counts }), {
      baseP50Us: 17285,
      counts: { correct: 3, incorrect: 1, compile_error: 1 },
    });
    assert.deepEqual(runFacts({ ...base, baselineP50Us: null }), { baseP50Us: null, counts: null }, 'a starting kernel that was not correct has no time');
    assert.deepEqual(runFacts(base), { baseP50Us: null, counts: null });
  });

  it('prefers the profile verdict (it has counters) from hone/result', () => {
    const check = verdict({ status: 'incorrect', reason: 'x' });
    const prof = verdict();
    assert.equal(latestVerdict({ uri: 'u', version: 1, running: [], check, profile: prof }), prof);
    assert.equal(latestVerdict({ uri: 'u', version: 1, running: [], check }), check);
    assert.equal(latestVerdict(undefined), undefined);
  });

  it('turns a proposal into the model with ids as strings and the server\'s speedups', () => {
    const p = proposalFrom('file:///k.cu', { id: 7, runId: 2, text: 'src', verdict: verdict(), speedup: { eager: 2.5, kernel: 1.6 } });
    assert.deepEqual(p, {
      kernelUri: 'file:///k.cu',
      runId: '2',
      candidateId: '7',
      status: 'correct',
      reason: undefined,
      p50Us: 20,
      speedup: { eager: 2.5, compile: null, overCurrent: 1.6 },
      source: 'src',
      diff: undefined,
      rechecked: true,
    });
    assert.equal(proposalFrom('k', { id: 8, runId: 2, text: 's', verdict: verdict(), speedup: {}, rechecked: false }).rechecked, false);
    const withDiff = proposalFrom('k', { id: 4, runId: 1, text: 't', verdict: verdict(), speedup: {}, uri: 'k', diff: '--- a/k.cu' });
    assert.equal(withDiff.diff, '--- a/k.cu');
  });

  it('takes the speedup over the current kernel from the server alone', () => {
    // No point and no range from the server: none, not the ratio of two medians of unknown noise.
    assert.equal(proposalFrom('k', { id: 4, runId: 1, text: '', verdict: verdict(), speedup: {} }).speedup.overCurrent, null);
    assert.equal(proposalFrom('k', { id: 4, runId: 1, text: '', verdict: verdict(), speedup: { kernel: 1.5 } }).speedup.overCurrent, 1.5);
    // A noisy time: the server's range, never a point derived from the medians.
    const noisy = proposalFrom('k', { id: 6, runId: 1, text: '', verdict: verdict(), speedup: { kernelRange: { low: 1.1, high: 1.6 } } });
    assert.deepEqual(noisy.speedup, { eager: 2.5, compile: null, overCurrent: null, overCurrentRange: { low: 1.1, high: 1.6 } });
    const wrong = proposalFrom('k', { id: 5, runId: 1, text: '', verdict: verdict({ status: 'incorrect', reason: 'mismatch' }), speedup: {} });
    assert.equal(wrong.speedup.overCurrent, null);
  });

  it('reads optimize progress from hone/jobProgress round fields only', () => {
    assert.deepEqual(
      optimizeProgressFrom(
        progress({ message: 'round 3/8 · best 2.1× · 41 candidates', note: 'verifying', round: 3, rounds: 8, candidates: 41, bestSpeedupEager: 2.1, bestP50Us: 12.5, elapsedSeconds: 95 }),
        100,
      ),
      { round: 3, rounds: 8, candidates: 41, bestSpeedup: 2.1, bestP50Us: 12.5, elapsedS: 95, message: 'verifying' },
    );
    assert.equal(optimizeProgressFrom(progress({ round: 1 }), 7)?.elapsedS, 7);
    assert.equal(optimizeProgressFrom(progress({ round: 1 }), 7)?.bestSpeedup, null);
    assert.equal(optimizeProgressFrom(progress({ stage: 'build', message: 'nvcc' }), 1), undefined);
    assert.equal(optimizeProgressFrom(progress({ kind: 'check', round: 2 }), 1), undefined);
  });

  it('takes candidate rows from progress events that name a candidate and its status', () => {
    const row = candidateFromProgress('k', '1', progress({ event: 'verified', runId: 40, candidateId: 12, status: 'incorrect', message: 'round 2/8 · 5 candidates', note: 'mismatch at out[3]', round: 2 }));
    assert.deepEqual(row, {
      kernelUri: 'k',
      runId: '1',
      candidateId: '12',
      status: 'incorrect',
      reason: 'mismatch at out[3]',
      round: 2,
      p50Us: null,
      speedup: { eager: null, compile: null, overCurrent: null },
    });
    assert.equal(candidateFromProgress('k', '1', progress({ event: 'proposed', candidateId: 12, status: 'pending' })), undefined);
    const fast = candidateFromProgress('k', '1', progress({ event: 'verified', runId: 40, candidateId: 13, status: 'correct', note: '', round: 3, p50Us: 20.5, speedupEager: 2.4, speedupCompile: 1.1, speedupKernel: 1.9 }));
    assert.equal(fast?.runId, '1', "rows belong to the extension's run, not the server's run id");
    assert.equal(fast?.reason, undefined);
    assert.equal(fast?.p50Us, 20.5);
    assert.deepEqual(fast?.speedup, { eager: 2.4, compile: 1.1, overCurrent: 1.9 });
    assert.equal(candidateFromProgress('k', '1', progress({ event: 'note' })), undefined);
    const noisy = candidateFromProgress('k', '1', progress({ event: 'verified', candidateId: 14, status: 'correct', note: '', p50Us: 21, speedupEagerRange: { low: 1.4, high: 2.1 }, speedupKernel: 1.8 }));
    assert.deepEqual(noisy?.speedup, { eager: null, compile: null, overCurrent: 1.8, eagerRange: { low: 1.4, high: 2.1 } });
    const noisyKernel = candidateFromProgress('k', '1', progress({ event: 'verified', candidateId: 15, status: 'correct', note: '', p50Us: 21, speedupEager: 2, speedupKernelRange: { low: 1.1, high: 1.6 } }));
    assert.deepEqual(noisyKernel?.speedup, { eager: 2, compile: null, overCurrent: null, overCurrentRange: { low: 1.1, high: 1.6 } });
  });

  it('never shows a lower best speedup than it already showed in a run', () => {
    const at = (best: number | null, round: number) => ({ round, rounds: 8, candidates: round * 4, bestSpeedup: best, bestP50Us: best ? 10 / best : null, elapsedS: round });
    let shown = mergeProgress(undefined, at(null, 1));
    assert.equal(shown.bestSpeedup, null);
    shown = mergeProgress(shown, at(2.1, 2));
    assert.equal(shown.bestSpeedup, 2.1);
    shown = mergeProgress(shown, at(1.7, 3));  // the 2.1× candidate failed its re-verification
    assert.deepEqual([shown.bestSpeedup, shown.bestP50Us, shown.round, shown.candidates], [2.1, 10 / 2.1, 3, 12]);
    shown = mergeProgress(shown, at(null, 4));
    assert.equal(shown.bestSpeedup, 2.1);
    assert.equal(mergeProgress(shown, at(3, 5)).bestSpeedup, 3);
  });

  it('shows the best range while a busy machine gives no point, and a point once there is one', () => {
    const ranged = (low: number, high: number, round: number) => ({ round, rounds: 8, candidates: round, bestSpeedup: null, bestSpeedupRange: { low, high }, bestP50Us: 5, elapsedS: round });
    const first = optimizeProgressFrom(progress({ kind: 'optimize', round: 1, bestSpeedupEagerRange: { low: 1.4, high: 2.1 }, bestP50Us: 5 }), 0);
    assert.deepEqual(first?.bestSpeedupRange, { low: 1.4, high: 2.1 });
    assert.equal(optimizeProgressFrom(progress({ kind: 'optimize', round: 1, bestSpeedupEagerRange: { low: 3, high: 2 } }), 0)?.bestSpeedupRange, undefined);
    let shown = mergeProgress(undefined, ranged(1.4, 2.1, 1));
    shown = mergeProgress(shown, ranged(1.2, 2.5, 2));
    assert.deepEqual(shown.bestSpeedupRange, { low: 1.4, high: 2.1 }, 'the highest low end stays');
    shown = mergeProgress(shown, ranged(1.6, 1.9, 3));
    assert.deepEqual(shown.bestSpeedupRange, { low: 1.6, high: 1.9 });
    shown = mergeProgress(shown, { ...ranged(0, 0, 4), bestSpeedup: 1.8, bestSpeedupRange: null });
    assert.equal(shown.bestSpeedup, 1.8);
    shown = mergeProgress(shown, ranged(2, 3, 5));
    assert.deepEqual([shown.bestSpeedup, shown.bestSpeedupRange], [1.8, null], 'a point shown is never replaced by a range');
  });

  it('places the kernel and the reference from the profile, and the best proposal with the kernel\'s work', () => {
    const point = (seconds: number, flops: number, bytes: number) => ({
      label: 'x', seconds, dram_bytes: bytes, flops, precision: 'fp32', arithmetic_intensity: flops / bytes,
      memory_pct: 1, compute_pct: 1, pct_of_roofline: 1, bound: 'memory' as const, peak_bytes_per_s: 4.8e12, peak_flops_per_s: 6e13,
    });
    const v = verdict({
      profile: {
        ceilings: { dram_bytes_per_s: { value: 4.8e12, source: 'spec' }, flops_per_s: { fp32: { value: 6e13, source: 'spec' } } },
        candidate: { roofline: point(20e-6, 1e9, 2e9) },
        reference: { roofline: point(50e-6, 1e9, 4e9) },
      } as unknown as Verdict['profile'],  // only the parts the report reads
    });
    const best = { kernelUri: 'k', runId: '1', candidateId: '4', status: 'correct' as const, speedup: { eager: 5, compile: null, overCurrent: 2 }, p50Us: 10 };
    const r = rooflineInput(v, best);
    assert.ok(r);
    assert.equal(r.peakFlopsPerS, 6e13);
    assert.equal(r.peakDramBytesPerS, 4.8e12);
    assert.equal(r.precision, 'fp32');
    assert.deepEqual(
      r.samples.map((s) => [s.kind, Math.round(s.timeUs), s.flops, s.dramBytes]),
      [
        ['kernel', 20, 1e9, 2e9],
        ['baseline', 50, 1e9, 4e9],
        ['proposal', 10, 1e9, 2e9],
      ],
    );
    assert.equal(rooflineInput(verdict(), undefined), undefined);
  });
});
