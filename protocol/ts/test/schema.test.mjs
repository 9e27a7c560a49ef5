// protocol/ts/test/schema.test.mjs: the checked-in TypeScript matches the schemas, the schemas
// compile under JSON Schema 2020-12 (ajv), and every method the schema lists names real $defs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { compile } from 'json-schema-to-typescript';
import { generate, outputPath, refsBesideDescriptions, schemaDir } from '../generate.mjs';

const load = (name) => JSON.parse(readFileSync(join(schemaDir, name), 'utf8'));

export function makeValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const verdict = load('verdict.schema.json');
  // lsp.schema.json refers to "verdict.schema.json" relative to its own $id.
  ajv.addSchema({ ...verdict, $id: 'https://hone.dev/schema/verdict.schema.json' });
  // verdict.schema.json's `profile` refers to profile.schema.json by its $id.
  ajv.addSchema(load('profile.schema.json'));
  ajv.addSchema(load('lsp.schema.json'));
  return ajv;
}

test('checked-in hone-protocol.ts is what the schemas generate', async () => {
  const expected = await generate();
  const actual = readFileSync(outputPath, 'utf8');
  assert.equal(actual, expected, 'protocol/ts/hone-protocol.ts is stale: run `npm run generate` in protocol/ts');
});

test('schemas compile and every listed method names existing definitions', () => {
  const ajv = makeValidator();
  const lsp = load('lsp.schema.json');
  for (const [method, spec] of Object.entries(lsp['x-methods'])) {
    for (const key of ['params', 'result']) {
      if (!spec[key]) continue;
      const validate = ajv.getSchema('https://hone.dev/schema/lsp.schema.json' + spec[key]);
      assert.ok(validate, `${method}: ${key} ${spec[key]} does not resolve`);
    }
  }
});

test('the schema rejects what the server must not send', () => {
  const ajv = makeValidator();
  const finished = ajv.getSchema('https://hone.dev/schema/lsp.schema.json#/$defs/JobFinished');
  assert.ok(finished({ jobId: 1, kind: 'check', uri: 'file:///k.cu', status: 'cancelled' }));
  assert.ok(!finished({ jobId: 1, kind: 'bench', uri: 'file:///k.cu', status: 'cancelled' }));
  const options = ajv.getSchema('https://hone.dev/schema/lsp.schema.json#/$defs/JobOptions');
  assert.ok(options({ seeds: 3, device: 'cpu' }));
  assert.ok(!options({ seeds: 0 }));
  assert.ok(!options({ sedes: 3 }));
});

test('a machine-code listing carries counts, never negative ones', () => {
  const ajv = makeValidator();
  const listing = ajv.getSchema('https://hone.dev/schema/lsp.schema.json#/$defs/MachineCode');
  const sass = {
    uri: 'file:///k.cu', kind: 'sass', symbol: '_Z5scalePKfPfif', name: 'scale', functions: ['scale'], mapped: true,
    text: '        /*00b0*/ LDG.E R2, desc[UR4][R2.64] ;\n',
    lines: [{ text: '        /*00b0*/ LDG.E R2, desc[UR4][R2.64] ;', file: '/k.cu', line: 4, inFile: true,
              counters: { smsp__sass_inst_executed: 32, smsp__sass_thread_inst_executed: 1000 } }],
    counters: { metrics: ['smsp__sass_inst_executed', 'smsp__sass_thread_inst_executed'], note: 'counters of the last profile of this build',
                profiledAt: '2025-06-01T12:00:00Z',
                sourceLines: [{ file: '/k.cu', line: 4, inFile: true, counters: { smsp__sass_inst_executed: 32 } }] },
  };
  assert.ok(listing(sass), JSON.stringify(listing.errors));
  assert.ok(listing({ ...sass, counters: { metrics: [], note: 'no profile of this build yet: run Profile to see per-line counters', sourceLines: [] } }));
  assert.ok(!listing({ ...sass, lines: [{ ...sass.lines[0], counters: { smsp__sass_inst_executed: -1 } }] }));
  assert.ok(!listing({ ...sass, counters: { metrics: [], sourceLines: [] } }), 'a listing without its note');
});


test('a $ref with a description beside it names the referenced type, not a numbered copy', async () => {
  const schema = () => ({
    title: 'Timing', type: 'object',
    properties: { call: { $ref: '#/$defs/summary', description: 'call time' },
                  device: { $ref: '#/$defs/summary', description: 'device time' } },
    $defs: { summary: { type: 'object', properties: { p50_us: { type: 'number' } } } },
  });
  const options = { bannerComment: '', format: false };
  const plain = await compile(schema(), 'Timing', options);
  assert.match(plain, /Summary1/, 'json-schema-to-typescript no longer numbers such copies: refsBesideDescriptions may go');
  const text = await compile(refsBesideDescriptions(schema()), 'Timing', options);
  assert.doesNotMatch(text, /Summary1/);
  assert.match(text, /call time[\s\S]*call\?: Summary\b/);
  assert.match(text, /device time[\s\S]*device\?: Summary\b/);
});

test('no type of the protocol is declared twice under a numbered name', async () => {
  const text = await generate();
  const declared = new Set([...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]));
  const copies = [...declared].filter((name) => /\D\d+$/.test(name) && declared.has(name.replace(/\d+$/, '')));
  assert.deepEqual(copies, []);
});
