// machine_code_text.test.ts: the SASS view's text: the header without a profile, counter columns
// aligned beside each instruction with one, the line mapping past the header, the source-line label.
import * as assert from 'node:assert/strict';
import { counterTitle, groupDigits, renderListing, sourceLineLabel, type MachineCode } from '../src/machine_code_text';

const INST = 'smsp__sass_inst_executed';
const THREAD = 'smsp__sass_thread_inst_executed';

function listing(withCounters: boolean): MachineCode {
  const lines: MachineCode['lines'] = [
    { text: '.text._Z5scalePKfPfif:', file: '', line: -1, inFile: false },
    { text: '        /*0070*/               @P0 EXIT ;', file: '/k/scale.cu', line: 3, inFile: true },
    { text: '        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;', file: '/k/scale.cu', line: 4, inFile: true },
  ];
  if (withCounters) {
    lines[1].counters = { [INST]: 32, [THREAD]: 1024 };
    lines[2].counters = { [INST]: 32, [THREAD]: 1000 };
  }
  return {
    uri: 'file:///k/scale.cu', kind: 'sass', symbol: '_Z5scalePKfPfif', name: 'scale', functions: ['scale'], mapped: true,
    text: lines.map((l) => l.text).join('\n') + '\n', lines,
    counters: withCounters
      ? { metrics: [INST, THREAD], note: 'counters of the last profile of this build (2025-06-01T12:00:00Z), per SASS instruction',
          sourceLines: [{ file: '/k/scale.cu', line: 4, inFile: true, counters: { [INST]: 288, [THREAD]: 9000 } }] }
      : { metrics: [], note: 'no profile of this build yet: run Profile to see per-line counters', sourceLines: [] },
  };
}

describe('machine code view text', () => {
  it('says in its header that the build has no profile yet', () => {
    const r = renderListing(listing(false));
    assert.equal(r.headerLines, 1);
    const lines = r.text.split('\n');
    assert.equal(lines[0], '// no profile of this build yet: run Profile to see per-line counters');
    assert.equal(lines[1], '.text._Z5scalePKfPfif:');
    assert.equal(lines[3], '        /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;');
  });

  it('puts the counters in aligned columns beside each instruction', () => {
    const r = renderListing(listing(true));
    assert.equal(r.headerLines, 2);
    const lines = r.text.split('\n');
    assert.match(lines[0], /^\/\/ counters of the last profile of this build/);
    assert.equal(lines[1], '// warp inst  thread inst  | ');
    assert.equal(lines[2], ' '.repeat(27) + '| .text._Z5scalePKfPfif:');
    assert.equal(lines[3], '          32        1,024  |         /*0070*/               @P0 EXIT ;');
    assert.equal(lines[4], '          32        1,000  |         /*00b0*/                   LDG.E R2, desc[UR4][R2.64] ;');
    const bar = lines[1].indexOf('|');
    for (const l of lines.slice(2, 5)) assert.equal(l.indexOf('|'), bar, `columns line up: ${l}`);
  });

  it('leaves PTX as it is', () => {
    const ptx = { ...listing(false), kind: 'ptx' as const, counters: undefined };
    const r = renderListing(ptx);
    assert.equal(r.headerLines, 0);
    assert.equal(r.text, ptx.text);
  });

  it('labels a source line with its sums in the listing\'s order', () => {
    assert.equal(sourceLineLabel({ [THREAD]: 9000, [INST]: 288 }, [INST, THREAD]), 'warp inst 288 · thread inst 9,000');
    assert.equal(sourceLineLabel({ [INST]: 5 }, [INST, THREAD]), 'warp inst 5');
    assert.equal(counterTitle('smsp__sass_sectors_mem_global_ideal'), 'ideal');
    assert.equal(counterTitle('smsp__sass_inst_executed_op_global_ld'), 'inst_executed_op_global_ld');
    assert.equal(groupDigits(1234567), '1,234,567');
    assert.equal(groupDigits(999), '999');
  });
});
