// manifest.test.ts: package.json and the code agree: every declared command is registered by a
// feature and every registered command is declared; menus and keybindings name declared commands;
// every setting has a description; the activation events cover CUDA files and hone.toml.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const sources = fs
  .readdirSync(path.join(root, 'src'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => fs.readFileSync(path.join(root, 'src', f), 'utf8'))
  .join('\n');

describe('manifest', () => {
  const declared: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command);

  it('declares exactly the commands the features register', () => {
    const registered = [...sources.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]);
    assert.deepEqual([...registered].sort(), [...declared].sort());
  });

  it('has the issue\'s commands, titled for the palette', () => {
    const titles = manifest.contributes.commands.map((c: { title: string; category: string }) => `${c.category}: ${c.title}`);
    for (const t of ['Check this kernel', 'Profile this kernel', 'Optimize this kernel', 'Stop', 'Show best proposal', 'Apply proposal', 'Select task (reference)', 'Show report']) {
      assert.ok(titles.includes(`hone: ${t}`), `missing "hone: ${t}"`);
    }
  });

  it('menus and keybindings name declared commands; Optimize has a key', () => {
    const used = [...Object.values(manifest.contributes.menus).flat(), ...manifest.contributes.keybindings].map((m) => (m as { command: string }).command);
    for (const c of used) assert.ok(declared.includes(c), `${c} is not declared`);
    assert.ok(manifest.contributes.keybindings.some((k: { command: string }) => k.command === 'hone.optimize'));
    const context = manifest.contributes.menus['editor/context'].map((m: { command: string }) => m.command);
    for (const c of ['hone.check', 'hone.profile', 'hone.optimize', 'hone.showReport']) assert.ok(context.includes(c));
  });

  it('describes every setting, and keeps the API key out of settings', () => {
    const props = manifest.contributes.configuration.properties;
    for (const [key, p] of Object.entries(props) as Array<[string, { description?: string; markdownDescription?: string }]>) {
      assert.ok((p.description ?? p.markdownDescription ?? '').length > 20, `${key} has no description`);
      assert.ok(!/key|token|secret/i.test(key.split('.').pop() ?? ''), `${key} looks like a secret in settings`);
    }
    for (const k of ['hone.server.path', 'hone.python', 'hone.device', 'hone.llm.baseUrl', 'hone.llm.model', 'hone.optimize.budgetMinutes', 'hone.optimize.samples', 'hone.optimize.rounds', 'hone.tolerance.atol', 'hone.tolerance.rtol']) {
      assert.ok(props[k], `missing setting ${k}`);
    }
    const read = [...sources.matchAll(/str\('([^']+)'|num\('([^']+)'|tol\('([^']+)'/g)].map((m) => `hone.${m[1] ?? m[2] ?? m[3]}`);
    for (const k of Object.keys(props).filter((k) => k !== 'hone.trace.server')) assert.ok(read.includes(k), `setting ${k} is never read`);
  });

  it('activates on CUDA files and hone.toml, runs where the workspace is, packages offline', () => {
    assert.ok(manifest.activationEvents.includes('onLanguage:cuda-cpp'));
    assert.ok(manifest.activationEvents.some((e: string) => e.includes('*.cu')));
    assert.ok(manifest.activationEvents.some((e: string) => e.includes('hone.toml')));
    assert.deepEqual(manifest.extensionKind, ['workspace']);
    assert.ok(manifest.license);
    // hone has no public repository yet: no made-up URL, and vsce is told so (not asked on a prompt).
    assert.equal(manifest.repository, undefined);
    assert.match(manifest.scripts.package, /vsce package .*--allow-missing-repository/);
    assert.equal(manifest.main, './dist/extension.js');
  });
});
