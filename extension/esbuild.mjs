// esbuild.mjs: bundles the extension (dist/extension.js, node) and the report page (dist/report.js,
// browser, with chart.js inside so it works offline); --tests bundles test/*.test.ts for mocha;
// --production minifies and stages the LICENSE (and a built hone-server, see stagePackage) for vsce.
import { execFileSync } from 'node:child_process';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = new Set(process.argv.slice(2));
const production = args.has('--production');

async function buildExtension() {
  await esbuild.build({
    entryPoints: [path.join(here, 'src/extension.ts')],
    outfile: path.join(here, 'dist/extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
  });
  await esbuild.build({
    entryPoints: [path.join(here, 'webview/report.ts')],
    outfile: path.join(here, 'dist/report.js'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: false,
    minify: production,
    logLevel: 'warning',
  });
}

async function buildTests() {
  const dir = path.join(here, 'test');
  const entries = fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f));
  fs.rmSync(path.join(here, 'out-test'), { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries,
    outdir: path.join(here, 'out-test'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // Tests cover only modules that run without VS Code: a `vscode` import fails the run.
    external: ['mocha'],
    logLevel: 'warning',
  });
}

// The .vsix carries the repo's LICENSE and, when one is built, hone-server with its share folder
// (bin/hone-server finds ../share/hone) when HONE_BUILD names a build folder (relative to the repo).
function stagePackage() {
  fs.copyFileSync(path.join(here, '../LICENSE'), path.join(here, 'LICENSE'));
  const staged = path.join(here, 'server');
  fs.rmSync(staged, { recursive: true, force: true });
  if (!process.env.HONE_BUILD) {
    console.log('package: HONE_BUILD unset, no server bundled; the .vsix finds hone-server through HONE_SERVER_PATH, hone.server.path or PATH');
    return;
  }
  const build = path.resolve(here, '..', process.env.HONE_BUILD);
  const bin = path.join(build, 'bin/hone-server');
  if (!fs.existsSync(bin)) throw new Error(`package: HONE_BUILD=${process.env.HONE_BUILD} but ${bin} does not exist`);
  // The server and the helpers it runs from its own folder (hone-confine, the sandbox helper).
  fs.mkdirSync(path.join(staged, 'bin'), { recursive: true });
  for (const name of fs.readdirSync(path.dirname(bin)).filter((n) => n.startsWith('hone-'))) {
    const target = path.join(staged, 'bin', name);
    fs.copyFileSync(path.join(path.dirname(bin), name), target);
    fs.chmodSync(target, 0o755);
    // Debug info is most of a RelWithDebInfo binary; the .vsix does not need it.
    execFileSync('strip', ['--strip-unneeded', target]);
  }
  const share = path.join(build, 'share/hone');
  if (fs.existsSync(share)) {
    fs.cpSync(share, path.join(staged, 'share/hone'), {
      recursive: true,
      dereference: true,
      filter: (src) => !src.includes('__pycache__'),
    });
  }
  console.log(`package: bundling ${fs.readdirSync(path.join(staged, 'bin')).join(', ')} and share/hone from ${build}`);
}

if (args.has('--tests')) {
  await buildTests();
} else {
  await buildExtension();
  if (production) stagePackage();
}
