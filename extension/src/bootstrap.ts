// bootstrap.ts: finds hone-server (HONE_SERVER_PATH, then the setting, then the bundled binary, then
// PATH) and checks it answers `--version`; no vscode import, so it is unit-tested directly.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type ServerSource = 'HONE_SERVER_PATH' | 'hone.server.path' | 'bundled' | 'PATH';

export interface ServerLocation {
  path: string;
  source: ServerSource;
}

export interface ResolvedServer extends ServerLocation {
  version: string;
}

export interface LocateInputs {
  env: NodeJS.ProcessEnv;
  setting: string;
  extensionDir: string;
  workspaceDir?: string;
}

/** A server that could not be found or does not work; the message says what was tried. */
export class BootstrapError extends Error {}

const EXE = process.platform === 'win32' ? 'hone-server.exe' : 'hone-server';

/** Where the .vsix carries its own server, if it was packaged with one. */
export function bundledServerPath(extensionDir: string): string {
  return path.join(extensionDir, 'server', 'bin', EXE);
}

/** `~/x` -> home/x; a relative path is taken from the first workspace folder. */
export function expandPath(p: string, workspaceDir?: string): string {
  let out = p.trim();
  if (out === '~' || out.startsWith('~/')) out = path.join(os.homedir(), out.slice(1));
  if (!path.isAbsolute(out) && workspaceDir) out = path.join(workspaceDir, out);
  return out;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function searchPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, EXE))) return path.join(dir, EXE);
  }
  return undefined;
}

/**
 * Picks the server by precedence. An explicitly named server (env var or setting) that does not
 * exist is an error rather than a silent fall-through, so a typo is never hidden.
 * Called on the extension host thread at every (re)start.
 */
export function locateServer(inputs: LocateInputs): ServerLocation {
  const fromEnv = inputs.env.HONE_SERVER_PATH?.trim();
  if (fromEnv) {
    const p = expandPath(fromEnv, inputs.workspaceDir);
    if (!isExecutable(p)) throw new BootstrapError(`HONE_SERVER_PATH=${fromEnv}: ${p} is not an executable file`);
    return { path: p, source: 'HONE_SERVER_PATH' };
  }
  if (inputs.setting.trim()) {
    const p = expandPath(inputs.setting, inputs.workspaceDir);
    if (!isExecutable(p)) throw new BootstrapError(`hone.server.path=${inputs.setting}: ${p} is not an executable file`);
    return { path: p, source: 'hone.server.path' };
  }
  const bundled = bundledServerPath(inputs.extensionDir);
  if (isExecutable(bundled)) return { path: bundled, source: 'bundled' };
  const onPath = searchPath(inputs.env);
  if (onPath) return { path: onPath, source: 'PATH' };
  throw new BootstrapError(
    `hone-server not found: HONE_SERVER_PATH is unset, hone.server.path is empty, no server is bundled at ` +
      `${bundled}, and ${EXE} is not on PATH. Build it (cmake --build build --target hone-server) and set hone.server.path.`,
  );
}

/** "hone-server 0.1.0 (abc123)" -> "0.1.0 (abc123)"; the whole first line when it has another form. */
export function parseVersion(stdout: string): string | undefined {
  const line = stdout.split('\n').map((l) => l.trim()).find((l) => l.length > 0);
  if (!line) return undefined;
  const m = /^hone(?:-server)?\s+(?:version\s+)?(.+)$/i.exec(line);
  return m ? m[1] : line;
}

/** Runs `<server> --version` with a deadline; rejects with the command, exit status and output. */
export function checkVersion(server: ServerLocation, env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<ResolvedServer> {
  return new Promise((resolve, reject) => {
    execFile(server.path, ['--version'], { env, timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const cmd = `${server.path} --version (from ${server.source})`;
      if (err) {
        const why = err.killed ? `timed out after ${timeoutMs} ms` : `failed: ${err.message.split('\n')[0]}`;
        const out = [stdout, stderr].join('\n').trim();
        reject(new BootstrapError(`${cmd} ${why}${out ? `\n${out}` : ''}`));
        return;
      }
      const version = parseVersion(String(stdout));
      if (!version) {
        reject(new BootstrapError(`${cmd} printed no version${stderr ? `:\n${String(stderr).trim()}` : ''}`));
        return;
      }
      resolve({ ...server, version });
    });
  });
}

/** locateServer + checkVersion. */
export async function resolveServer(inputs: LocateInputs, timeoutMs?: number): Promise<ResolvedServer> {
  return checkVersion(locateServer(inputs), inputs.env, timeoutMs);
}
