// proposal_store.test.ts: keeping, ranking and merging optimize candidates.
import * as assert from 'node:assert/strict';
import type { Proposal } from '../src/model';
import { ProposalStore, compareProposals, rankingSpeedup } from '../src/proposal_store';

const K = 'file:///w/softmax.cu';
function prop(id: string, over: Partial<Proposal> = {}): Proposal {
  return { kernelUri: K, runId: 'r1', candidateId: id, status: 'correct', speedup: { eager: 1, compile: null, overCurrent: null }, p50Us: 10, ...over };
}

describe('ProposalStore', () => {
  it('ranks verified proposals by speedup over the current kernel, else over eager', () => {
    assert.equal(rankingSpeedup(prop('a', { speedup: { eager: 3, compile: null, overCurrent: 1.5 } })), 1.5);
    assert.equal(rankingSpeedup(prop('a', { speedup: { eager: 3, compile: null, overCurrent: null } })), 3);
    assert.equal(rankingSpeedup(prop('a', { status: 'incorrect', speedup: { eager: 9, compile: null, overCurrent: 9 } })), null);
    const sorted = [prop('slow', { round: 1 }), prop('bad', { status: 'rejected', round: 0 }), prop('fast', { speedup: { eager: 2, compile: null, overCurrent: null } })].sort(
      compareProposals,
    );
    assert.deepEqual(sorted.map((p) => p.candidateId), ['fast', 'slow', 'bad']);
  });

  it('never calls a wrong, cheating or crashed candidate the best', () => {
    const s = new ProposalStore();
    s.startRun(K, 'r1', 'base');
    s.upsert(prop('cheat', { status: 'rejected', speedup: { eager: 50, compile: 40, overCurrent: 45 } }));
    s.upsert(prop('wrong', { status: 'incorrect', speedup: { eager: 9, compile: null, overCurrent: null } }));
    assert.equal(s.best(K), undefined);
    s.upsert(prop('ok', { speedup: { eager: 1.2, compile: null, overCurrent: 1.1 } }));
    assert.equal(s.best(K)?.candidateId, 'ok');
    assert.deepEqual(s.list(K).map((p) => p.candidateId), ['ok', 'cheat', 'wrong']);
    assert.deepEqual(s.kernelsWithProposals(), [K]);
  });

  it('merges later facts into a candidate without losing earlier ones', () => {
    const s = new ProposalStore();
    s.upsert(prop('c1', { source: undefined, round: 2 }));
    const merged = s.upsert({ ...prop('c1'), source: '__global__ void k() {}', round: undefined });
    assert.equal(merged.source, '__global__ void k() {}');
    assert.equal(merged.round, 2);
    assert.equal(s.list(K).length, 1);
  });

  it('keeps runs apart and browsable after they finish', () => {
    const s = new ProposalStore();
    let changes = 0;
    const sub = s.onDidChange(() => changes++);
    s.startRun(K, 'r1', 'v1', 1);
    s.upsert(prop('a'));
    s.finishRun('r1');
    s.startRun(K, 'r2', 'v2', 2);
    s.upsert(prop('b', { runId: 'r2', speedup: { eager: 4, compile: null, overCurrent: null } }));
    s.startRun('file:///w/other.cu', 'r3', 'x', 3);
    assert.deepEqual(s.runsOf(K).map((r) => r.runId), ['r2', 'r1']);
    assert.equal(s.run('r1')?.finished, true);
    assert.equal(s.run('r1')?.baseSource, 'v1');
    assert.equal(s.best(K)?.candidateId, 'b');
    assert.equal(s.get('r1', 'a')?.candidateId, 'a');
    assert.equal(s.list('file:///w/other.cu').length, 0);
    assert.equal(changes, 6);
    sub.dispose();
    s.finishRun('r2');
    assert.equal(changes, 6);
  });
});
