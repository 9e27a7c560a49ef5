// jobs.test.ts: tracking and cancelling running jobs.
import * as assert from 'node:assert/strict';
import { JobTracker } from '../src/jobs';

describe('JobTracker', () => {
  it('tracks jobs by kind and kernel and cancels the matching ones', () => {
    const t = new JobTracker();
    const cancelled: string[] = [];
    let changes = 0;
    t.onDidChange(() => changes++);
    const a = t.begin('optimize', 'file:///a.cu', 'optimizing a.cu', () => cancelled.push('a'));
    t.begin('check', 'file:///a.cu', 'checking a.cu', () => cancelled.push('b'));
    t.begin('optimize', 'file:///c.cu', 'optimizing c.cu', () => cancelled.push('c'));
    assert.equal(t.running('optimize').length, 2);
    assert.equal(t.running(undefined, 'file:///a.cu').length, 2);
    assert.equal(t.cancel('optimize', 'file:///a.cu'), 1);
    assert.deepEqual(cancelled, ['a']);
    a.end();
    a.end();
    assert.equal(t.running().length, 2);
    assert.equal(changes, 4, 'three begins and one end; a second end changes nothing');
    assert.equal(t.cancelAll(), 2);
    assert.deepEqual(cancelled.sort(), ['a', 'b', 'c']);
  });
});
