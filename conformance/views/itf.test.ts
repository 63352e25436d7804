// The ITF schema and structure check (spec/schemas/itf.schema.json) that
// the ITF this folder writes (itf.ts) is held to; cli/itf.test.ts checks
// the files written and read back.
import { describe, expect, it } from 'vitest';
import { itfStructureProblem, schemaError } from '../../spec/index.ts';
import type { ItfTrace } from '../../spec/index.ts';

describe('the ITF schema (written from the facts of Apalache ADR-015)', () => {
  it('accepts each kind of expression, and a trace with params, loop and #meta', () => {
    const t = {
      '#meta': { source: 'hand-made' },
      params: ['n'],
      vars: ['x', 'y'],
      loop: 1,
      states: [
        {
          '#meta': { index: 0 },
          n: { '#bigint': '3' },
          x: { '#set': [1, { '#bigint': '-20' }] },
          y: { '#map': [[{ '#tup': ['a', true] }, ['l']]] },
        },
        { x: { '#unserializable': 'Int' }, y: { tag: 'Some', value: { field: 'v' } } },
      ],
    };
    expect(schemaError('itf', t)).toBeUndefined();
    expect(itfStructureProblem(t as ItfTrace)).toBeUndefined();
  });

  it(
    'refuses what the ADR rules out: no vars, a field starting with #, a non-integer #bigint, a map entry ' +
      'that is not a pair, an integer beyond 2^53-1, a state missing a variable',
    () => {
      expect(schemaError('itf', { states: [] })).toBeDefined();
      expect(schemaError('itf', { vars: [], states: [{ '#x': 1 }] })).toBeDefined();
      expect(schemaError('itf', { vars: ['x'], states: [{ x: { '#bigint': '1.5' } }] })).toBeDefined();
      expect(schemaError('itf', { vars: ['x'], states: [{ x: { '#map': [[1, 2, 3]] } }] })).toBeDefined();
      expect(schemaError('itf', { vars: ['x'], states: [{ x: 2 ** 53 }] })).toBeDefined();
      expect(schemaError('itf', { vars: ['x'], states: [{ x: { r: { '#y': 1 } } }] })).toBeDefined();
      expect(itfStructureProblem({ vars: ['x', 'y'], states: [{ x: 1 }] })).toEqual({
        pointer: '/states/0',
        message: 'state 0 sets no value for the variable "y"',
      });
    },
  );
});
