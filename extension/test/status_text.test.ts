// status_text.test.ts: status bar and notification wording of a running optimize.
import * as assert from 'node:assert/strict';
import { formatMicros, formatSpeedup, optimizeNotificationText, optimizeStatusText } from '../src/status_text';

describe('status text', () => {
  it('formats speedups with sensible precision', () => {
    assert.equal(formatSpeedup(2.13), '2.1×');
    assert.equal(formatSpeedup(0.873), '0.87×');
    assert.equal(formatSpeedup(14.6), '15×');
    assert.equal(formatSpeedup(null), '–');
    assert.equal(formatSpeedup(Number.NaN), '–');
    assert.equal(formatSpeedup(0), '–');
  });

  it('formats times with a unit', () => {
    assert.equal(formatMicros(41.23), '41.2 µs');
    assert.equal(formatMicros(3.456), '3.46 µs');
    assert.equal(formatMicros(12345), '12.3 ms');
    assert.equal(formatMicros(2.5e6), '2.50 s');
    assert.equal(formatMicros(undefined), '–');
  });

  it('renders the optimize status like the issue says', () => {
    assert.equal(optimizeStatusText({ round: 3, rounds: 8, bestSpeedup: 2.1, bestP50Us: 5, candidates: 41, elapsedS: 10 }), 'round 3/8 · best 2.1× · 41 candidates');
    assert.equal(
      optimizeStatusText({ round: 1, rounds: 8, bestSpeedup: null, bestP50Us: null, candidates: 1, elapsedS: 0 }),
      'round 1/8 · no verified candidate yet · 1 candidate',
    );
    assert.equal(
      optimizeStatusText({ round: 2, rounds: 8, bestSpeedup: null, bestSpeedupRange: { low: 1.43, high: 2.1 }, bestP50Us: 5, candidates: 3, elapsedS: 0 }),
      'round 2/8 · best 1.4–2.1× (noisy) · 3 candidates',
    );
    assert.equal(
      optimizeStatusText({ round: 2, rounds: 8, bestSpeedup: null, bestP50Us: 41.23, candidates: 3, elapsedS: 0 }),
      'round 2/8 · best 41.2 µs · 3 candidates',
    );
    assert.equal(
      optimizeNotificationText({ round: 2, rounds: 2, bestSpeedup: 1.04, bestP50Us: 7, candidates: 9, elapsedS: 75.4, message: 'verifying' }),
      'round 2/2 · best 1.0× · 9 candidates · 1 min 15 s · verifying',
    );
  });
});
