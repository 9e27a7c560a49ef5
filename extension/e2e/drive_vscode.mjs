// drive_vscode.mjs: drives a real VS Code (code-server, started by scripts/e2e-vscode.sh) in
// Debian's headless Chromium with playwright-core through hone's user journey, asserting each
// step and saving a screenshot of it: a diagnostic for an injected error, a lens after Check,
// Optimize with the built-in proposer (status bar, diff), Apply as one undoable edit, the report.
// Env: HONE_E2E_URL, HONE_E2E_WORKSPACE, HONE_E2E_KERNEL (file name in the workspace),
// HONE_E2E_OUT (screenshots, e2e-result.json, failure.png), HONE_E2E_LOGS (code-server's logs),
// HONE_E2E_USER_DIR and HONE_E2E_EXTENSIONS (its profile and extensions folders).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium } from 'playwright-core';

const url = need('HONE_E2E_URL');
const workspace = need('HONE_E2E_WORKSPACE');
const kernel = need('HONE_E2E_KERNEL');
const shots = need('HONE_E2E_OUT');
const logs = process.env.HONE_E2E_LOGS ?? '';
const kernelPath = path.join(workspace, kernel);
const original = fs.readFileSync(kernelPath, 'utf8');
const MIN = 60_000;

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run scripts/e2e-vscode.sh)`);
  return v;
}

let stepNo = 0;
const results = [];

async function step(name, fn) {
  stepNo += 1;
  const t0 = Date.now();
  process.stdout.write(`e2e ${stepNo}. ${name} ... `);
  await fn();
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  results.push({ step: name, seconds: Number(s) });
  console.log(`ok (${s} s)`);
}

async function shot(page, file) {
  await page.screenshot({ path: path.join(shots, file) });
}

/** Runs a command from the palette by its title. */
async function palette(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await input.press('Enter');
}

async function openFile(page, name) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
  await input.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: name }).first().waitFor({ timeout: 15_000 });
}

/** The hone status bar item's text and its accessible label (which names the server's state). */
async function statusText(page) {
  const item = page.locator('.statusbar-item[id$="hone.status"]').first();
  const text = (await item.textContent()) ?? '';
  const label = (await item.getAttribute('aria-label')) ?? (await item.locator('[aria-label]').first().getAttribute('aria-label').catch(() => '')) ?? '';
  return `${text.trim()} | ${label}`;
}

async function waitForStatus(page, re, timeout) {
  const t0 = Date.now();
  let last = '';
  while (Date.now() - t0 < timeout) {
    last = await statusText(page).catch(() => '');
    if (re.test(last)) return last;
    await page.waitForTimeout(250);
  }
  throw new Error(`status bar never matched ${re} within ${timeout / 1000} s; last: "${last}"`);
}

/** The report webview's inner frame (the page that draws). */
async function reportFrame(page) {
  for (const f of page.frames()) {
    if (await f.$('#roofline').catch(() => null)) return f;
  }
  throw new Error('no report frame');
}

/** How many pixels of a report canvas are not transparent. */
async function canvasInk(page, id) {
  const f = await reportFrame(page);
  return f.evaluate((canvasId) => {
    const c = document.getElementById(canvasId);
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n;
  }, id);
}

/** Live hone-server processes started from this run's extensions folder. */
function serverPids() {
  const pids = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0')[0];
      if (cmd.endsWith('/hone-server') && cmd.startsWith(process.env.HONE_E2E_EXTENSIONS ?? '/')) pids.push(d);
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

async function waitFor(predicate, timeout, what) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeout) {
    try {
      if (predicate()) return;
    } catch {
      // a process vanished between the listing and the read: look again
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(what);
}

function dumpLogs() {
  if (!logs || !fs.existsSync(logs)) return;
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/hone|exthost|remoteagent/i.test(e.name)) files.push(p);
    }
  };
  walk(logs);
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8').split('\n').slice(-40).join('\n');
    console.log(`--- ${f} (last lines) ---\n${text}`);
  }
}

const browser = await chromium.launch({
  executablePath: process.env.HONE_E2E_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
let failed = false;
try {
  await step('VS Code loads the workspace and hone-server starts', async () => {
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench .statusbar').waitFor({ timeout: 2 * MIN });
    await openFile(page, kernel);
    await waitForStatus(page, /hone-server is running/, 2 * MIN);
    await shot(page, '1-opened.png');
  });

  await step('an injected error shows as a diagnostic', async () => {
    await page.locator('.editor-instance .monaco-editor:visible .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('static int hone_e2e_injected = undeclared_name;');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 3 * MIN });
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'undeclared_name' }).first().waitFor({ timeout: 30_000 });
    await shot(page, '2-diagnostic.png');
    await palette(page, 'File: Revert File');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'detached', timeout: 3 * MIN });
    assert.equal(fs.readFileSync(kernelPath, 'utf8'), original);
  });

  await step('Check puts the verdict in a code lens', async () => {
    await palette(page, 'hone: Check this kernel');
    const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: '✓ correct' }).first();
    await lens.waitFor({ timeout: 5 * MIN });
    await shot(page, '3-check-lens.png');
  });

  await step('Optimize (Ctrl+Alt+O, built-in proposer) shows progress and opens the diff', async () => {
    await page.locator('.editor-instance .monaco-editor:visible .view-lines').first().click();
    await page.keyboard.press('Control+Alt+O');
    await waitForStatus(page, /round \d+\/\d+ · best/, 2 * MIN);
    await shot(page, '4-optimizing.png');
    const diffTab = page.locator('.tabs-container .tab', { hasText: 'proposal' }).first();
    const none = page.locator('.notifications-toasts', { hasText: 'no verified proposal beats' }).first();
    await Promise.race([diffTab.waitFor({ timeout: 10 * MIN }), none.waitFor({ timeout: 10 * MIN })]);
    if (await none.isVisible()) throw new Error(`the optimizer found no faster verified proposal: ${await none.textContent()}`);
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    const title = (await diffTab.getAttribute('aria-label')) ?? (await diffTab.textContent()) ?? '';
    assert.match(title, /verified/, `diff title: ${title}`);
    await shot(page, '5-diff.png');
  });

  await step('Apply replaces the kernel as one undoable edit that verifies', async () => {
    await palette(page, 'hone: Apply proposal');
    await page.locator('.tabs-container .tab.active', { hasText: kernel }).first().waitFor({ timeout: 30_000 });
    await page.locator('.notifications-toasts', { hasText: 'applied proposal' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.editor-instance .monaco-editor:visible .view-lines').first().click();
    await page.keyboard.press('Control+S');
    await page.waitForTimeout(1000);
    const applied = fs.readFileSync(kernelPath, 'utf8');
    assert.notEqual(applied, original, 'Apply changed nothing');
    await shot(page, '6-applied.png');
    await page.locator('.editor-instance .monaco-editor:visible .view-lines').first().click();
    await page.keyboard.press('Control+Z');
    await page.keyboard.press('Control+S');
    await page.waitForTimeout(1000);
    assert.equal(fs.readFileSync(kernelPath, 'utf8'), original, 'one undo did not restore the kernel');
    await page.keyboard.press('Control+Shift+Z');
    await page.keyboard.press('Control+S');
    await page.waitForTimeout(1000);
    assert.equal(fs.readFileSync(kernelPath, 'utf8'), applied);
    await palette(page, 'Notifications: Clear All Notifications');
    await palette(page, 'hone: Check this kernel');
    await page.locator('.notifications-toasts', { hasText: `${kernel}: ✓ correct` }).first().waitFor({ timeout: 5 * MIN });
  });

  await step('the report draws the curve and the candidate table (and a roofline when given one)', async () => {
    await palette(page, 'hone: Show report');
    const frame = page.frameLocator('iframe.webview.ready').first().frameLocator('iframe#active-frame');
    await frame.locator('#candidates tr').first().waitFor({ timeout: MIN });
    await frame.locator('#curve-time').waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok((await canvasInk(page, 'curve-time')) > 500, 'the curve canvas is blank');
    await page.waitForTimeout(500);
    await shot(page, '7-report.png');
    // CPU kernels have no profile, so no roofline: post the page a shaped roofline (an H200-like
    // roof and two points) and check it draws; the panel's next update replaces it.
    const page2 = await reportFrame(page);
    await page2.evaluate(() => {
      const roof = [{ x: 0.01, y: 4.8e10 }, { x: 12.5, y: 6e13 }, { x: 1000, y: 6e13 }];
      const points = [
        { x: 0.25, y: 1e12, label: 'kernel', kind: 'kernel', ofRoof: 0.83 },
        { x: 0.125, y: 2e11, label: 'PyTorch reference', kind: 'baseline', ofRoof: 0.33 },
      ];
      window.postMessage({ type: 'data', data: { title: 'fixture', roofline: { roof, ridgeIntensity: 12.5, points, precision: 'fp32' }, curve: { missing: 'x' }, table: [], counts: {} } }, '*');
    });
    await frame.locator('#roofline').waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok((await canvasInk(page, 'roofline')) > 500, 'the roofline canvas is blank');
  });

  await step('Stop cancels a running Optimize and the server keeps serving', async () => {
    await palette(page, 'View: Close All Editors');
    await openFile(page, kernel);
    await palette(page, 'Notifications: Clear All Notifications');
    await palette(page, 'hone: Optimize this kernel');
    await waitForStatus(page, /hone: (optimizing|round)/, MIN);
    await palette(page, 'hone: Stop');
    const toast = page.locator('.notifications-toasts', { hasText: 'Stopped optimizing' }).first();
    await toast.waitFor({ timeout: 2 * MIN });
    assert.match((await toast.textContent()) ?? '', /no verified proposal beats the current kernel/, 'a Stop must not re-announce an earlier run\'s winner');
    await waitForStatus(page, /hone-server is running/, MIN);
  });

  await step('Select task writes the pairing line into the kernel', async () => {
    await palette(page, 'hone: Select task (reference)');
    const task = kernel.replace(/\.[^.]+$/, '.py');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: task }).first().waitFor({ timeout: 30_000 });
    await input.fill(task);
    await input.press('Enter');
    await page.locator('.notifications-toasts', { hasText: `is now checked against ${task}` }).first().waitFor({ timeout: 30_000 });
    await page.locator('.editor-instance .monaco-editor:visible .view-lines').first().click();
    await page.keyboard.press('Control+S');
    await page.waitForTimeout(1000);
    const firstLine = fs.readFileSync(kernelPath, 'utf8').split('\n')[0];
    assert.equal(firstLine, `// hone: task=${task}`);
    await shot(page, '8-select-task.png');
  });

  await step('the LLM API key goes to the restarted server\'s environment, not to settings', async () => {
    const key = `sk-hone-e2e-${process.pid}`;
    const before = serverPids();
    assert.equal(before.length, 1, `expected one hone-server, found ${before.length}`);
    await palette(page, 'hone: Set LLM API key');
    const input = page.locator('.quick-input-widget input');
    await input.fill(key);
    await input.press('Enter');
    await waitFor(() => serverPids().some((p) => !before.includes(p)), MIN, 'hone-server was not restarted');
    await waitForStatus(page, /hone-server is running/, MIN);
    const [pid] = serverPids();
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(env.includes(`HONE_LLM_API_KEY=${key}`), 'the key is not in the server\'s environment');
    const settings = path.join(process.env.HONE_E2E_USER_DIR ?? '', 'User', 'settings.json');
    if (fs.existsSync(settings)) assert.ok(!fs.readFileSync(settings, 'utf8').includes(key), 'the key leaked into settings.json');
    await palette(page, 'hone: Clear LLM API key');
    await waitFor(() => {
      const now = serverPids();
      return now.length === 1 && !fs.readFileSync(`/proc/${now[0]}/environ`, 'utf8').includes('HONE_LLM_API_KEY=');
    }, MIN, 'the key was not cleared from the restarted server');
  });

  await step('a crashed server is restarted with a visible message', async () => {
    await waitForStatus(page, /hone-server is running/, MIN);
    const [pid] = serverPids();
    process.kill(Number(pid), 'SIGKILL');
    await page.locator('.notifications-toasts', { hasText: 'hone-server stopped unexpectedly; restarting (1/4' }).first().waitFor({ timeout: MIN });
    await waitFor(() => serverPids().length === 1 && serverPids()[0] !== pid, MIN, 'no new hone-server after the crash');
    await waitForStatus(page, /hone-server is running/, MIN);
    await palette(page, 'hone: Check this kernel');
    await page.locator('.notifications-toasts', { hasText: `${kernel}: ✓ correct` }).first().waitFor({ timeout: 5 * MIN });
  });
} catch (e) {
  failed = true;
  console.log(`FAILED\n${e instanceof Error ? e.stack : String(e)}`);
  await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => undefined);
  dumpLogs();
} finally {
  await browser.close();
}
fs.writeFileSync(path.join(shots, 'e2e-result.json'), JSON.stringify({ ok: !failed, steps: results }, null, 2) + '\n');
process.exit(failed ? 1 : 0);
