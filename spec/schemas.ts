// The JSON Schemas of spec/schemas/, compiled once with ajv (draft 2020-12).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { packagePath } from './packageFiles.ts';
import { PROTOCOL_VERSION } from './protocol.ts';

const schemaDir = packagePath('spec', 'schemas');
const SCHEMA_BASE = 'https://schemas.streamjoin.dev/v1/';

/** Names of the schema documents: paths under spec/schemas/ without `.schema.json` (`record`, `protocol/request`). */
export type SchemaName = string;

let ajvInstance: Ajv2020 | undefined;

/**
 * ajv is loaded on the first validation, not with spec/: a process that never
 * validates a document (the explorer's search threads, `streamjoin check`)
 * does not carry its code, about 9 MB of resident memory per thread.
 */
function ajv(): Ajv2020 {
  if (ajvInstance) return ajvInstance;
  // Each schema is checked against the 2020-12 meta-schema by schemas.test.ts, not at every start: that
  // check was about half of the first validation's cost (80 of 150 ms), paid by every command that validates.
  const instance = newAjv({ validateSchema: false });
  for (const schema of schemaDocuments()) instance.addSchema(schema);
  ajvInstance = instance;
  return instance;
}

/** A new ajv with the options every validator is compiled with (`validateSchema`: whether addSchema checks against the meta-schema). */
export function newAjv(options: { readonly validateSchema: boolean }): Ajv2020 {
  const { Ajv2020: Ajv } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return new Ajv({ allErrors: false, strict: true, strictRequired: false, discriminator: true, ...options });
}

/** Every schema document: the documents', then the protocol's (spec/PROTOCOL.md), which refer to them, then the CLI's JSON reports. */
export function schemaDocuments(): object[] {
  const documents: object[] = [];
  for (const dir of [schemaDir, join(schemaDir, 'protocol'), join(schemaDir, 'reports')]) {
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.schema.json'))
      .sort()) {
      documents.push(JSON.parse(readFileSync(join(dir, file), 'utf8')) as object);
    }
  }
  return documents;
}

const compiled = new Map<string, ValidateFunction>();

/** The compiled validator of `spec/schemas/<name>.schema.json`, or of a `$defs` entry (`name#/$defs/X`). */
export function schemaValidator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    const [file, fragment] = name.split('#');
    // The protocol's schemas name the protocol version they describe (PROTOCOL.md): protocol/X is protocol-v2/X.
    const path = (file ?? '').replace(/^protocol\//, `protocol-v${PROTOCOL_VERSION}/`);
    const id = `${SCHEMA_BASE}${path}.schema.json${fragment ? `#${fragment}` : ''}`;
    v = ajv().getSchema(id);
    if (!v) throw new Error(`no schema ${id}`);
    compiled.set(name, v);
  }
  return v;
}

/** One readable line per ajv error: `<json pointer> <message>`. */
export function describeSchemaError(e: ErrorObject): string {
  const at = e.instancePath === '' ? '(document)' : e.instancePath;
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'false schema') {
    detail = 'is not allowed here';
  } else if (e.keyword === 'additionalProperties') {
    detail = `has unknown property "${String((e.params as { additionalProperty?: unknown }).additionalProperty)}"`;
  } else if (e.keyword === 'enum' || e.keyword === 'const') {
    const allowed = e.params as { allowedValues?: unknown[]; allowedValue?: unknown };
    const values = allowed.allowedValues ?? [allowed.allowedValue];
    detail = `must be one of ${values.map((x) => JSON.stringify(x)).join(', ')}`;
  }
  return `${at} ${detail}`;
}

/** Validates `value`; returns `undefined` or the first error, described. */
export function schemaError(name: SchemaName, value: unknown): { pointer: string; text: string } | undefined {
  const v = schemaValidator(name);
  if (v(value)) return undefined;
  const first = v.errors?.[0];
  if (!first) return { pointer: '', text: '(document) is invalid' };
  return { pointer: first.instancePath, text: describeSchemaError(first) };
}
