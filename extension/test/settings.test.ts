// settings.test.ts: reading hone.* settings and mapping them onto the server's environment and payload.
import * as assert from 'node:assert/strict';
import { API_KEY_ENV, DEFAULTS, checkJobOptions, describeOptimizeSettings, hintFrom, optimizeJobOptions, readSettings, serverEnvironment, serverSettings } from '../src/settings';

const getter = (values: Record<string, unknown>) => (key: string) => values[key];

describe('settings', () => {
  it('gives the documented defaults for an empty configuration', () => {
    const { settings, problems } = readSettings(getter({}));
    assert.deepEqual(settings, DEFAULTS);
    assert.equal(settings.device, 'auto');
    assert.deepEqual(problems, []);
  });

  it('reads every setting', () => {
    const { settings, problems } = readSettings(
      getter({
        'server.path': ' /opt/hone/bin/hone-server ',
        python: '/opt/torch/.venv/bin/python3',
        device: 'cuda',
        'llm.baseUrl': 'https://api.deepseek.com/v1',
        'llm.model': 'deepseek-reasoner',
        'optimize.budgetMinutes': 2.5,
        'optimize.samples': 8,
        'optimize.rounds': 3,
        'tolerance.atol': 1e-3,
        'tolerance.rtol': 0,
      }),
    );
    assert.deepEqual(problems, []);
    assert.equal(settings.serverPath, '/opt/hone/bin/hone-server');
    assert.deepEqual(serverSettings(settings), {
      python: '/opt/torch/.venv/bin/python3',
      device: 'cuda',
      llm: { baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner' },
    });
    assert.deepEqual(optimizeJobOptions(settings), { device: 'cuda', atol: 1e-3, rtol: 0, budgetSeconds: 150, samples: 8, rounds: 3 });
    assert.equal(describeOptimizeSettings(settings), 'deepseek-reasoner at api.deepseek.com · 8 samples × 3 rounds · 2.5 min');
  });

  it('sends the GPU pool setting and refuses a malformed one', () => {
    assert.deepEqual(serverSettings(readSettings(getter({ gpus: 'all' })).settings), { device: 'auto', gpus: 'all' });
    assert.deepEqual(serverSettings(readSettings(getter({ gpus: '0,2' })).settings), { device: 'auto', gpus: '0,2' });
    const bad = readSettings(getter({ gpus: 'two' }));
    assert.equal(bad.settings.gpus, '');
    assert.match(bad.problems.join('\n'), /hone\.gpus must be all/);
  });

  it('uses the built-in proposer when no endpoint is set, and sends no null tolerances', () => {
    const { settings } = readSettings(getter({ 'optimize.budgetMinutes': 0.5 }));
    assert.deepEqual(serverSettings(settings), { device: 'auto' });
    assert.deepEqual(optimizeJobOptions(settings), { device: 'auto', budgetSeconds: 30, samples: 4, rounds: 8 });
    assert.equal(describeOptimizeSettings(settings), 'built-in proposer · 4 samples × 8 rounds · 30 s');
  });

  it('forwards a hint (a code action\'s suggestion or typed text) trimmed, and never a blank one', () => {
    const { settings } = readSettings(getter({}));
    assert.equal(optimizeJobOptions(settings, '  use float4 loads \n').hint, 'use float4 loads');
    assert.equal('hint' in optimizeJobOptions(settings, ' \t'), false);
    assert.equal(hintFrom({ hint: ' Use 16-byte loads ' }), 'Use 16-byte loads');
    for (const extra of [undefined, null, 'text', { hint: 3 }, { hint: '   ' }, {}]) assert.equal(hintFrom(extra), undefined);
  });

  it('reports bad values and falls back, never throwing', () => {
    const { settings, problems } = readSettings(
      getter({
        device: 'cuda:1',
        'optimize.samples': 2.5,
        'optimize.rounds': -1,
        'optimize.budgetMinutes': 'ten',
        'tolerance.atol': -1,
        'llm.baseUrl': 'ftp://x',
        python: 42,
      }),
    );
    assert.equal(settings.device, 'auto');
    assert.equal(settings.optimize.samples, 4);
    assert.equal(settings.optimize.rounds, 8);
    assert.equal(settings.optimize.budgetMinutes, 15);
    assert.equal(settings.tolerance.atol, null);
    assert.equal(settings.llm.baseUrl, '');
    assert.equal(settings.python, '');
    assert.equal(problems.length, 7);
    assert.ok(problems.some((p) => p.includes('hone.device') && p.includes('cuda:1')));
    assert.ok(problems.some((p) => p.includes('hone.optimize.samples') && p.includes('integer')));
  });

  it('asks for a model when an endpoint is set', () => {
    const r = readSettings(getter({ 'llm.baseUrl': 'http://localhost:8000/v1' }));
    assert.equal(r.settings.llm.baseUrl, 'http://localhost:8000/v1');
    assert.match(r.problems[0], /hone\.llm\.model is empty/);
  });

  it('puts the API key only in the environment, replacing an inherited one', () => {
    const base = { PATH: '/usr/bin', [API_KEY_ENV]: 'old' };
    const env = serverEnvironment(base, 'sk-secret');
    assert.equal(env[API_KEY_ENV], 'sk-secret');
    assert.equal(env.PATH, '/usr/bin');
    assert.equal(base[API_KEY_ENV], 'old', 'the base environment is not modified');
    assert.equal(serverEnvironment(base, undefined)[API_KEY_ENV], 'old');
    const { settings } = readSettings(getter({ 'llm.baseUrl': 'http://h/v1', 'llm.model': 'm' }));
    assert.ok(!JSON.stringify([serverSettings(settings), optimizeJobOptions(settings)]).includes('sk-secret'));
  });

  it('maps settings onto check job options', () => {
    const { settings } = readSettings(getter({ device: 'cpu', 'tolerance.rtol': 0.01 }));
    assert.deepEqual(checkJobOptions(settings), { device: 'cpu', rtol: 0.01 });
  });
});
