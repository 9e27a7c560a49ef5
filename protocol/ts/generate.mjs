// protocol/ts/generate.mjs: generates hone-protocol.ts from protocol/schema/{lsp,verdict}.schema.json
// with json-schema-to-typescript. `--write` writes the file; without it, prints to stdout.
import { compile } from 'json-schema-to-typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const schemaDir = join(here, '..', 'schema');
export const outputPath = join(here, 'hone-protocol.ts');

const banner =
  '// protocol/ts/hone-protocol.ts: GENERATED from protocol/schema/*.schema.json by protocol/ts/generate.mjs\n' +
  '// (npm run generate). Do not edit: change the schema and regenerate; a test fails when they differ.\n';

export async function generate() {
  const options = { cwd: schemaDir, bannerComment: '', unreachableDefinitions: true, additionalProperties: true,
                    format: true, style: { singleQuote: true } };
  const lsp = JSON.parse(readFileSync(join(schemaDir, 'lsp.schema.json'), 'utf8'));
  const methods = lsp['x-methods'];
  let text = banner + '\n' + (await compile(lsp, 'HoneLspProtocol', options));
  text += '\n/** The custom methods: name -> direction, kind, params and result types. */\n';
  text += 'export const HONE_METHODS = ' + JSON.stringify(methods, null, 2).replace(/"/g, "'") + ' as const;\n';
  return text;
}

if (process.argv.includes('--write')) {
  writeFileSync(outputPath, await generate());
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(await generate());
}
