// tests/lsp/e2e/server.e2e.test.mjs: hone-server driven by vscode-jsonrpc, the JSON-RPC library
// under VS Code's language client: a broken CUDA kernel gets nvcc's diagnostics; a CPU kernel
// checked against its PyTorch reference gets a "✓ correct" lens; the PTX and SASS views answer
// (SASS saying its build has no profile yet); everything hone-specific the server sends validates
// against protocol/schema (ajv).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import * as rpc from 'vscode-jsonrpc/node';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const serverPath = process.env.HONE_SERVER ?? join(repo, 'build', 'bin', 'hone-server');

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const load = (name) => JSON.parse(readFileSync(join(repo, 'protocol', 'schema', name), 'utf8'));
  ajv.addSchema({ ...load('verdict.schema.json'), $id: 'https://hone.dev/schema/verdict.schema.json' });
  ajv.addSchema(load('profile.schema.json'));
  ajv.addSchema(load('lsp.schema.json'));
  return (def, value) => {
    const validate = ajv.getSchema(`https://hone.dev/schema/lsp.schema.json#/$defs/${def}`);
    assert.ok(validate(value), `${def} does not match the schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
  };
}

const RELU_TASK = `import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 256)]


def get_init_inputs():
    return []
`;

const RELU_CPU = `#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
}
`;

const BROKEN_CU = `#include "hone.h"

__global__ void relu_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = undefined_name;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  relu_kernel<<<1, 256, 0, stream>>>(x.data(), out.data(), (int)x.numel());
}
`;

const SCALE_CU = `// scale.cu: y = a * x, and a copy
__global__ void scale(const float* x, float* y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

__global__ void copy(const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i];
}
`;

let workspace, child, connection;
const notifications = [];
const serverRequests = [];
const check = validator();

function received(method) {
  return notifications.filter((n) => n.method === method).map((n) => n.params);
}

before(async () => {
  assert.ok(existsSync(serverPath), `no hone-server at ${serverPath} (set HONE_SERVER)`);
  workspace = mkdtempSync(join(tmpdir(), 'hone-e2e-'));
  chmodSync(workspace, 0o755);  // the sandbox runs candidates as another user when hone runs as root
  writeFileSync(join(workspace, 'relu.py'), RELU_TASK);
  writeFileSync(join(workspace, 'relu.cpp'), RELU_CPU);
  writeFileSync(join(workspace, 'broken.cu'), BROKEN_CU);
  writeFileSync(join(workspace, 'scale.cu'), SCALE_CU);
  // Where no nvdisasm is installed, a stand-in on PATH prints a listing in its layout (a real one
  // beside nvcc is found first).
  const fixture = join(repo, 'tests', 'toolchain', 'fixtures', 'scale.nvdisasm');
  mkdirSync(join(workspace, 'bin'));
  writeFileSync(join(workspace, 'bin', 'nvdisasm'), `#!/bin/sh\nexec cat '${fixture}'\n`, { mode: 0o755 });
  child = spawn(serverPath, ['--stdio', '--debounce-ms', '50'], { cwd: workspace, stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, HONE_CACHE_DIR: join(workspace, '.cache'), PATH: `${join(workspace, 'bin')}:${process.env.PATH}` } });
  connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  connection.onNotification((method, params) => notifications.push({ method, params }));
  // vscode-jsonrpc routes $/progress to per-token handlers; tokens it does not know land here.
  connection.onUnhandledProgress((params) => notifications.push({ method: '$/progress', params }));
  for (const method of ['window/workDoneProgress/create', 'workspace/codeLens/refresh', 'workspace/inlayHint/refresh']) {
    connection.onRequest(method, (params) => {
      serverRequests.push({ method, params });
      return null;
    });
  }
  connection.listen();
  const init = await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    capabilities: { window: { workDoneProgress: true },
                    workspace: { codeLens: { refreshSupport: true }, inlayHint: { refreshSupport: true } } },
    initializationOptions: { python: '/usr/bin/python3', device: 'cpu' },
  });
  assert.equal(init.serverInfo.name, 'hone-server');
  await connection.sendNotification('initialized', {});
});

after(async () => {
  if (connection) {
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    const code = await new Promise((done) => child.on('exit', done));
    assert.equal(code, 0);
    connection.dispose();
  }
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

function open(name, languageId) {
  const uri = pathToFileURL(join(workspace, name)).href;
  const text = readFileSync(join(workspace, name), 'utf8');
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  return uri;
}

test('a broken CUDA kernel gets nvcc diagnostics at its line', async () => {
  const uri = open('broken.cu', 'cuda-cpp');
  await connection.sendRequest('hone/waitIdle', {});
  const published = received('textDocument/publishDiagnostics').filter((p) => p.uri === uri);
  assert.ok(published.length > 0, 'no diagnostics published for broken.cu');
  const last = published.at(-1);
  const error = last.diagnostics.find((d) => d.severity === 1 && /undefined_name/.test(d.message));
  assert.ok(error, `no error about undefined_name in ${JSON.stringify(last.diagnostics)}`);
  assert.equal(error.range.start.line, 4);
  assert.match(error.source, /nvcc/);
  const result = await connection.sendRequest('hone/result', { textDocument: { uri } });
  check('KernelResult', result);
  assert.equal(result.compile.ok, false);
  const lenses = await connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  assert.deepEqual(lenses.map((l) => l.range.start.line), [7, 7, 7, 7, 2, 2, 2, 2]);
  // broken.cu has no task: the status lens says so and offers the skeleton.
  assert.equal(lenses[0].command.title, 'hone: no task paired — create broken.py');
  assert.equal(lenses[0].command.command, 'hone.createTask');
  assert.deepEqual(lenses.slice(1, 4).map((l) => l.command.command), ['hone.check', 'hone.profile', 'hone.optimize']);
});

test('a checked CPU kernel gets a correct lens, progress and a schema-valid result', async () => {
  const uri = open('relu.cpp', 'cpp');
  const token = 'e2e-check';
  const finished = await connection.sendRequest('hone/check', { textDocument: { uri }, workDoneToken: token, options: { seeds: 3 } });
  check('JobFinished', finished);
  assert.equal(finished.status, 'done');
  assert.equal(finished.result.verdict.status, 'correct', JSON.stringify(finished.result.verdict).slice(0, 2000));
  const progress = received('$/progress').filter((p) => p.token === token).map((p) => p.value.kind);
  assert.equal(progress[0], 'begin');
  assert.equal(progress.at(-1), 'end');
  for (const p of received('hone/jobProgress')) check('JobProgress', p);
  for (const p of received('hone/jobFinished')) check('JobFinished', p);
  const lenses = await connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  assert.ok(lenses.length >= 4);
  assert.match(lenses[0].command.title, /^✓ correct/);
  assert.equal(lenses[0].range.start.line, 2);
  const result = await connection.sendRequest('hone/result', { textDocument: { uri } });
  check('KernelResult', result);
  assert.equal(result.check.status, 'correct');
  await connection.sendRequest('hone/waitIdle', {});
  assert.ok(serverRequests.some((r) => r.method === 'workspace/codeLens/refresh'), 'no lens refresh after the check');
});

test('the PTX and SASS views answer with schema-valid listings; SASS says its build has no profile yet', async () => {
  const uri = open('scale.cu', 'cuda-cpp');
  await connection.sendRequest('hone/waitIdle', {});
  const ptx = await connection.sendRequest('workspace/executeCommand', { command: 'hone.showPtx', arguments: [uri, { line: 4 }] });
  check('MachineCode', ptx);
  assert.equal(ptx.kind, 'ptx');
  assert.equal(ptx.counters, undefined);
  const sass = await connection.sendRequest('workspace/executeCommand', { command: 'hone.showSass', arguments: [uri, { function: 'scale' }] });
  check('MachineCode', sass);
  assert.equal(sass.name, 'scale');
  assert.equal(sass.counters.note, 'no profile of this build yet: run Profile to see per-line counters');
  assert.deepEqual(sass.counters.metrics, []);
  assert.ok(sass.lines.some((l) => /LDG/.test(l.text) && l.line === 4), JSON.stringify(sass.lines).slice(0, 2000));
  assert.match(readFileSync(sass.path, 'utf8'), /^\/\/ no profile of this build yet: run Profile to see per-line counters\n/);
});
