// restart_policy.test.ts: the capped restart-after-crash policy.
import * as assert from 'node:assert/strict';
import { RestartPolicy } from '../src/restart_policy';

describe('RestartPolicy', () => {
  it('restarts up to the cap inside the window, then stops with a message saying what to do', () => {
    const p = new RestartPolicy(3, 60_000);
    assert.equal(p.onCrash(0).restart, true);
    assert.equal(p.onCrash(1000).restart, true);
    const third = p.onCrash(2000);
    assert.equal(third.restart, true);
    assert.match(third.message, /restarting \(3\/3 in 1 min\)/);
    const fourth = p.onCrash(3000);
    assert.equal(fourth.restart, false);
    assert.equal(fourth.recentCrashes, 4);
    assert.match(fourth.message, /Restart server/);
  });

  it('forgets crashes older than the window', () => {
    const p = new RestartPolicy(2, 60_000);
    p.onCrash(0);
    p.onCrash(10_000);
    assert.equal(p.onCrash(65_000).restart, true, 'the first crash left the window');
    assert.equal(p.onCrash(65_001).restart, false);
  });

  it('reset() gives a fresh budget after a deliberate restart', () => {
    const p = new RestartPolicy(1, 60_000);
    p.onCrash(0);
    assert.equal(p.onCrash(1).restart, false);
    p.reset();
    assert.equal(p.onCrash(2).restart, true);
  });
});
