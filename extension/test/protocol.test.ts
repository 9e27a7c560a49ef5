// protocol.test.ts: the methods lsp_ext.ts binds are those protocol/schema/lsp.schema.json lists
// (through the generated HONE_METHODS), with the same kind and direction; a protocol change that
// renames or retypes a method fails here (and its shapes fail the type-check).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HONE_METHODS } from '../src/wire';

const source = fs.readFileSync(path.resolve(__dirname, '../src/lsp_ext.ts'), 'utf8');
const bound = [...source.matchAll(/new (RequestType|NotificationType)<[^>]*>\('([^']+)'\)/g)].map((m) => ({
  kind: m[1] === 'RequestType' ? 'request' : 'notification',
  method: m[2],
}));

describe('protocol', () => {
  it('binds only methods the schema defines, as the kind it defines', () => {
    assert.ok(bound.length >= 6);
    const methods = HONE_METHODS as Record<string, { kind: string; direction: string }>;
    for (const b of bound) {
      const spec = methods[b.method];
      assert.ok(spec, `${b.method} is not in lsp.schema.json`);
      assert.equal(spec.kind, b.kind, b.method);
      assert.equal(spec.direction, b.kind === 'request' ? 'client->server' : 'server->client', b.method);
    }
  });

  it('uses every request the schema offers to clients, except the test-only hone/waitIdle', () => {
    const requests = Object.entries(HONE_METHODS as Record<string, { kind: string; direction: string }>)
      .filter(([m, s]) => s.kind === 'request' && s.direction === 'client->server' && m !== 'hone/waitIdle')
      .map(([m]) => m);
    for (const m of requests) assert.ok(bound.some((b) => b.method === m), `${m} is not bound in lsp_ext.ts`);
  });
});
