// The schemas themselves: at run time they are added without the meta-schema
// check (spec/schemas.ts), so it is made here, on every schema document.
import { describe, expect, it } from 'vitest';
import { newAjv, schemaDocuments, schemaValidator } from './schemas.ts';

describe('the schema documents', () => {
  it('each is valid against the JSON Schema 2020-12 meta-schema, and all compile together', () => {
    const checked = newAjv({ validateSchema: true });
    const documents = schemaDocuments();
    expect(documents.length).toBeGreaterThan(20);
    for (const d of documents) {
      const id = (d as { $id?: string }).$id;
      expect(checked.validateSchema(d), `${id}: ${checked.errorsText(checked.errors)}`).toBe(true);
      checked.addSchema(d);
    }
    for (const d of documents) expect(checked.getSchema((d as { $id: string }).$id), (d as { $id: string }).$id).toBeTypeOf('function');
  });

  it('the meta-schema check catches a keyword with a value of the wrong type', () => {
    const checked = newAjv({ validateSchema: true });
    expect(checked.validateSchema({ type: 'object', properties: { a: { type: 'strnig' } } })).toBe(false);
    expect(checked.validateSchema({ type: 'object', required: 'a' })).toBe(false);
  });

  it('the validators compiled at run time judge as those compiled after the check', () => {
    const checked = newAjv({ validateSchema: true });
    for (const d of schemaDocuments()) checked.addSchema(d);
    const record = { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 0, end: 2 };
    const bad = { ...record, side: 'X' };
    const id = 'https://schemas.streamjoin.dev/v1/record.schema.json';
    for (const value of [record, bad, { kind: 'watermark', side: 'R', wm: 3 }, { kind: 'watermark' }]) {
      expect(schemaValidator('record')(value)).toBe(checked.getSchema(id)?.(value));
    }
  });
});
