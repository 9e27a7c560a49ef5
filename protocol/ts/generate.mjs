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

// A property that is a $ref with a description beside it ({"$ref": "#/$defs/time_summary",
// "description": "device time: ..."}) is a new schema to json-schema-to-typescript, which then
// declares a numbered copy of the referenced type for each (TimeSummary1, TimeSummary2, ...).
// Written as {"allOf": [{"$ref": ...}], "description": ...} it keeps the description as the
// property's comment and names the referenced type itself. Applied to every schema file read,
// the ones lsp.schema.json refers to included.
export function refsBesideDescriptions(node) {
  if (Array.isArray(node)) {
    node.forEach(refsBesideDescriptions);
  } else if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string' && Object.keys(node).length > 1) {
      node.allOf = [{ $ref: node.$ref }];
      delete node.$ref;
    }
    Object.values(node).forEach(refsBesideDescriptions);
  }
  return node;
}

const readSchema = (path) => refsBesideDescriptions(JSON.parse(readFileSync(path, 'utf8')));

export async function generate() {
  const options = { cwd: schemaDir, bannerComment: '', unreachableDefinitions: true, additionalProperties: true,
                    format: true, style: { singleQuote: true },
                    $refOptions: { resolve: { file: { order: 1, canRead: true,
                                                      read: (file) => JSON.stringify(readSchema(file.url.startsWith('file:') ? fileURLToPath(file.url) : file.url)) } } } };
  const lsp = readSchema(join(schemaDir, 'lsp.schema.json'));
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
