import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEVELS, PROTOCOL_ERRORS, REQUEST_TYPES, levelAllows, okTypeOf } from './protocol.ts';
import { schemaError } from './schemas.ts';
import type { ProtocolRequest } from './types.gen.ts';
import { createProtocolServer } from '../conformance/adapters/protocolServer.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';

const doc = readFileSync(join(import.meta.dirname, 'PROTOCOL.md'), 'utf8');
const readSchema = (path: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'schemas', path), 'utf8')) as Record<string, unknown>;

/** The example exchanges: each ```protocol block is one connection, `>` a request line, `<` a reply line. */
function exchanges(): { request: string; reply: string }[][] {
  const blocks = [...doc.matchAll(/```protocol\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trimEnd().split('\n'));
  return blocks.map((lines) => {
    const out: { request: string; reply: string }[] = [];
    for (let i = 0; i < lines.length; i += 2) {
      const req = lines[i] as string;
      const rep = lines[i + 1] ?? '';
      if (!req.startsWith('> ') || !rep.startsWith('< '))
        throw new Error(`PROTOCOL.md: expected a "> " line then a "< " line, got ${req} / ${rep}`);
      out.push({ request: req.slice(2), reply: rep.slice(2) });
    }
    return out;
  });
}

const parse = (line: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

describe('PROTOCOL.md example exchanges (tested against the schemas and the model server)', () => {
  const blocks = exchanges();

  it('has one example exchange for every request type', () => {
    const shown = new Set(blocks.flat().map((x) => parse(x.request)?.['type']));
    for (const type of REQUEST_TYPES) expect(shown, `no example of ${type}`).toContain(type);
  });

  it('every example line is valid against its schema, and each reply is of the right kind', () => {
    for (const { request, reply } of blocks.flat()) {
      const req = parse(request);
      const rep = parse(reply);
      expect(rep, reply).toBeDefined();
      if (req && schemaError('protocol/request', req) === undefined) {
        // A request the schema accepts: its reply is `<type>_ok` or an error, and matches the reply schema.
        expect([okTypeOf(req['type'] as ProtocolRequest['type']), 'error']).toContain(rep?.['type']);
      }
      expect(schemaError('protocol/reply', rep), reply).toBeUndefined();
    }
  });

  it('replaying each block against `serve --model` gives the documented replies (errors by code)', () => {
    for (const block of blocks) {
      const server = createProtocolServer(modelSut);
      for (const { request, reply } of block) {
        const got = JSON.parse(server.handle(request)) as Record<string, unknown>;
        const want = JSON.parse(reply) as Record<string, unknown>;
        if (want['type'] === 'error') {
          // `text` is for people (PROTOCOL.md, Errors); the code and the id are the contract.
          expect({ in_reply_to: got['in_reply_to'], type: got['type'], code: got['code'] }, request).toEqual({
            in_reply_to: want['in_reply_to'],
            type: 'error',
            code: want['code'],
          });
        } else {
          expect(got, request).toEqual(want);
        }
      }
    }
  });

  it('shows every error code the protocol defines', () => {
    const codes = new Set(
      blocks
        .flat()
        .map((x) => parse(x.reply)?.['code'])
        .filter((c) => c !== undefined),
    );
    for (const [name, code] of Object.entries(PROTOCOL_ERRORS)) {
      if (name === 'internal_error') continue; // the reference model has none to show
      expect(codes, name).toContain(code);
    }
  });
});

describe('PROTOCOL.md and the schemas agree', () => {
  it('the error table, PROTOCOL_ERRORS and the ProtocolErrorCode enum list the same codes and names', () => {
    const table = [...doc.matchAll(/^\| (\d+) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
    expect(Object.fromEntries(table)).toEqual(PROTOCOL_ERRORS);
    const reply = readSchema('protocol/reply.schema.json') as { $defs: Record<string, { enum?: number[] }> };
    expect(reply.$defs['ProtocolErrorCode']?.enum).toEqual(Object.values(PROTOCOL_ERRORS));
  });

  it("the request types are the schema's, in its order", () => {
    const request = readSchema('protocol/request.schema.json') as { properties: { type: { enum: string[] } } };
    expect(request.properties.type.enum).toEqual([...REQUEST_TYPES]);
  });

  it('each cluster request is its cluster action (cluster-action.schema.json) plus `id`', () => {
    const request = readSchema('protocol/request.schema.json') as { $defs: Record<string, SchemaObject> };
    const action = readSchema('cluster-action.schema.json') as { $defs: Record<string, SchemaObject> };
    type SchemaObject = { properties: Record<string, unknown>; required: string[] };
    const byType = (defs: Record<string, SchemaObject>) =>
      new Map(
        Object.values(defs)
          .filter((d) => d.properties?.['type'])
          .map((d) => [(d.properties['type'] as { const: string }).const, d]),
      );
    const requests = byType(request.$defs);
    let compared = 0;
    for (const [type, a] of byType(action.$defs)) {
      if (type === 'process') continue; // not external (SPEC §7)
      const r = requests.get(type);
      expect(r, `no request for action ${type}`).toBeDefined();
      if (!r) continue;
      expect(Object.keys(r.properties).sort()).toEqual(['id', ...Object.keys(a.properties)].sort());
      expect([...r.required].sort()).toEqual(['id', ...a.required].sort());
      for (const [field, shape] of Object.entries(a.properties)) {
        // Same shape; descriptions may differ. (`record` refers to the same schema from another folder.)
        const bare = (x: unknown) => Object.fromEntries(Object.entries(x as object).filter(([k]) => k !== 'description'));
        if (field !== 'type' && field !== 'record') expect(bare(shape), `${type}.${field}`).toEqual(bare(r.properties[field]));
      }
      compared++;
    }
    expect(compared).toBe(15);
  });

  it('levels: operator admits record only; cluster refuses every fault; faults admits everything', () => {
    const crashCommit = { id: 1, type: 'commit', key: 'k', crashAfterFence: true } as ProtocolRequest;
    const plainCommit = { id: 1, type: 'commit', key: 'k' } as ProtocolRequest;
    expect(levelAllows('operator', { id: 1, type: 'inspect' })).toBe(false);
    expect(levelAllows('cluster', crashCommit)).toBe(false);
    expect(levelAllows('cluster', plainCommit)).toBe(true);
    expect(levelAllows('cluster', { id: 1, type: 'failover', key: 'k', to: 'w' })).toBe(false);
    expect(levelAllows('faults', crashCommit)).toBe(true);
    expect(LEVELS).toEqual(['operator', 'cluster', 'faults']);
  });
});
