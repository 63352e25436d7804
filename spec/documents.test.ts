import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, InputError } from './errors.ts';
import { loadOperatorTrace, parseOperatorTrace } from './documents.ts';
import { generateSchemaTypes, generatedTypesPath } from '../scripts/schemaTypes.ts';

const examplesDir = join(import.meta.dirname, 'examples');
const freshDirectory = useTemporaryDirectories('sj-');
const good = readFileSync(join(examplesDir, 'horizon-boundary.trace.json'), 'utf8');

function errorOf(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('no error');
}

/** Applies `edit` to a parsed copy of the good example and parses the result. */
function parseEdited(edit: (doc: { steps: { record: Record<string, unknown> }[] } & Record<string, unknown>) => void): InputError {
  const doc = JSON.parse(good) as { steps: { record: Record<string, unknown> }[] } & Record<string, unknown>;
  edit(doc);
  return errorOf(() => parseOperatorTrace(JSON.stringify(doc, null, 2), 'edited.json'));
}

describe('§4 operator traces: every example is a valid document', () => {
  it('has at least 12 examples and each validates against operator-trace.schema.json', () => {
    const files = readdirSync(examplesDir).filter((f) => f.endsWith('.trace.json'));
    expect(files.length).toBeGreaterThanOrEqual(12);
    for (const f of files) {
      const trace = loadOperatorTrace(join(examplesDir, f));
      expect(`${trace.name}.trace.json`).toBe(f);
      expect(trace.steps.every((s) => s.expect !== undefined)).toBe(true);
    }
  });
});

describe('§4 bad input names the file, the step and the field', () => {
  it('SJ101: invalid JSON, with line and column', () => {
    const e = errorOf(() => parseOperatorTrace('{\n  "format": "x",\n  oops\n}', 'bad.json'));
    expect(e.code).toBe('SJ101');
    expect(e.where).toBe('bad.json:3:3');
  });

  it('SJ102: a record field of the wrong type', () => {
    const e = parseEdited((d) => {
      (d.steps[3] as { record: Record<string, unknown> }).record['ts'] = '8';
    });
    // Line 75, column 15 of the pretty-printed document: the value "8".
    expect(e.format()).toBe('edited.json:75:15: SJ102 step 4: /steps/3/record/ts must be integer');
  });

  it('SJ102: a missing field, an unknown field, an unknown kind', () => {
    expect(parseEdited((d) => delete (d.steps[0] as { record: Record<string, unknown> }).record['end']).message).toBe(
      "step 1: /steps/0/record must have required property 'end'",
    );
    expect(parseEdited((d) => ((d.steps[1] as { record: Record<string, unknown> }).record['extra'] = 1)).message).toBe(
      'step 2: /steps/1/record has unknown property "extra"',
    );
    expect(parseEdited((d) => ((d.steps[2] as { record: Record<string, unknown> }).record['kind'] = 'upsert')).message).toBe(
      'step 3: /steps/2/record/kind must be one of "insert", "retract", "watermark"',
    );
  });

  it('SJ102: a config out of range (J0)', () => {
    const e = parseEdited((d) => ((d['config'] as Record<string, unknown>)['allowedLateness'] = -1));
    expect(e.message).toBe('/config/allowedLateness must be >= 0');
  });

  it('SJ103: a document of another format', () => {
    expect(parseEdited((d) => (d['format'] = 'streamjoin/operator-trace@9')).code).toBe('SJ103');
  });

  it('SJ100: a file that does not exist', () => {
    const dir = freshDirectory();
    const e = errorOf(() => loadOperatorTrace(join(dir, 'missing.json')));
    expect(e.code).toBe('SJ100');
    writeFileSync(join(dir, 'ok.json'), good);
    expect(loadOperatorTrace(join(dir, 'ok.json')).name).toBe('horizon-boundary');
  });
});

describe('schemas and TypeScript types do not drift', () => {
  it('spec/types.gen.ts is exactly what the schemas generate (run `npm run gen:types` after a schema change)', async () => {
    expect(readFileSync(generatedTypesPath, 'utf8')).toBe(await generateSchemaTypes());
  });
});

describe('SPEC §8 lists exactly the error codes the tools use', () => {
  it('the table in SPEC.md and ERROR_CODES agree', () => {
    const spec = readFileSync(join(import.meta.dirname, 'SPEC.md'), 'utf8');
    const section = spec.slice(spec.indexOf('## §8'), spec.indexOf('## §9'));
    const listed = [...section.matchAll(/^\| `(SJ\d{3})` \| (.+?) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(listed.map(([code]) => code)).toEqual(Object.keys(ERROR_CODES));
  });
});
