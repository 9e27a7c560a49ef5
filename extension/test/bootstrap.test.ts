// bootstrap.test.ts: server resolution order and the --version check, against real files and processes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BootstrapError, bundledServerPath, checkVersion, expandPath, locateServer, parseVersion, resolveServer } from '../src/bootstrap';

function script(dir: string, name: string, body: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

describe('bootstrap', () => {
  let tmp: string;
  let extDir: string;
  let binDir: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hone-bootstrap-'));
    extDir = path.join(tmp, 'ext');
    binDir = path.join(tmp, 'bin');
    fs.mkdirSync(extDir);
    fs.mkdirSync(binDir);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('prefers HONE_SERVER_PATH over the setting, the bundled binary and PATH', () => {
    const fromEnv = script(tmp, 'env/hone-server', 'echo hone-server 1');
    const fromSetting = script(tmp, 'setting/hone-server', 'echo hone-server 2');
    script(extDir, 'server/bin/hone-server', 'echo hone-server 3');
    script(binDir, 'hone-server', 'echo hone-server 4');
    const loc = locateServer({ env: { HONE_SERVER_PATH: fromEnv, PATH: binDir }, setting: fromSetting, extensionDir: extDir });
    assert.deepEqual(loc, { path: fromEnv, source: 'HONE_SERVER_PATH' });
  });

  it('falls through setting -> bundled -> PATH', () => {
    const fromSetting = script(tmp, 'setting/hone-server', '');
    const bundled = script(extDir, 'server/bin/hone-server', '');
    const onPath = script(binDir, 'hone-server', '');
    assert.equal(bundled, bundledServerPath(extDir));
    assert.equal(locateServer({ env: { PATH: binDir }, setting: fromSetting, extensionDir: extDir }).source, 'hone.server.path');
    assert.deepEqual(locateServer({ env: { PATH: binDir }, setting: '', extensionDir: extDir }), { path: bundled, source: 'bundled' });
    fs.rmSync(bundled);
    assert.deepEqual(locateServer({ env: { PATH: `/nonexistent:${binDir}` }, setting: ' ', extensionDir: extDir }), { path: onPath, source: 'PATH' });
  });

  it('resolves a relative setting against the workspace folder', () => {
    const p = script(tmp, 'ws/build/bin/hone-server', '');
    const loc = locateServer({ env: {}, setting: 'build/bin/hone-server', extensionDir: extDir, workspaceDir: path.join(tmp, 'ws') });
    assert.equal(loc.path, p);
    assert.equal(expandPath('~/x'), path.join(os.homedir(), 'x'));
  });

  it('refuses an explicitly named server that does not exist or is not executable, naming it', () => {
    assert.throws(
      () => locateServer({ env: { HONE_SERVER_PATH: '/no/such/hone-server' }, setting: '', extensionDir: extDir }),
      (e: Error) => e instanceof BootstrapError && e.message.includes('HONE_SERVER_PATH=/no/such/hone-server'),
    );
    const notExec = path.join(tmp, 'plain');
    fs.writeFileSync(notExec, '');
    assert.throws(() => locateServer({ env: {}, setting: notExec, extensionDir: extDir }), /hone\.server\.path=.*not an executable/);
    assert.throws(() => locateServer({ env: {}, setting: tmp, extensionDir: extDir }), /not an executable/);
  });

  it('says everything it tried when there is no server at all', () => {
    assert.throws(() => locateServer({ env: { PATH: binDir }, setting: '', extensionDir: extDir }), (e: Error) => {
      return e.message.includes('HONE_SERVER_PATH is unset') && e.message.includes(bundledServerPath(extDir)) && e.message.includes('PATH');
    });
  });

  it('parses version lines', () => {
    assert.equal(parseVersion('hone-server 0.1.0 (abc)\n'), '0.1.0 (abc)');
    assert.equal(parseVersion('\nhone version 2.0\n'), '2.0');
    assert.equal(parseVersion('something else'), 'something else');
    assert.equal(parseVersion('  \n'), undefined);
  });

  it('runs --version and returns the version', async () => {
    const p = script(binDir, 'hone-server', '[ "$1" = "--version" ] && echo "hone-server 0.3.1" && exit 0; exit 3');
    const r = await resolveServer({ env: { PATH: binDir }, setting: '', extensionDir: extDir });
    assert.deepEqual(r, { path: p, source: 'PATH', version: '0.3.1' });
  });

  it('reports a failing --version with the command, status and output', async () => {
    const p = script(binDir, 'hone-server', 'echo "error while loading shared libraries: libsqlite3.so.0" >&2; exit 127');
    await assert.rejects(checkVersion({ path: p, source: 'hone.server.path' }, {}), (e: Error) => {
      return e instanceof BootstrapError && e.message.includes(`${p} --version (from hone.server.path) failed`) && e.message.includes('libsqlite3.so.0');
    });
  });

  it('reports a server that prints nothing, and one that hangs', async () => {
    const silent = script(binDir, 'silent', 'exit 0');
    await assert.rejects(checkVersion({ path: silent, source: 'PATH' }, {}), /printed no version/);
    const hang = script(binDir, 'hang', 'exec sleep 30');
    const t0 = Date.now();
    await assert.rejects(checkVersion({ path: hang, source: 'PATH' }, {}, 300), /timed out after 300 ms/);
    assert.ok(Date.now() - t0 < 5000);
  });
});
