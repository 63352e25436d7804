import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import { createProtocolServer, serveStream } from './protocolServer.ts';
import { modelSut } from '../sut/modelSut.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { SutConfigError, type InProcessSut } from '../sut/sut.ts';

const cluster = { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] };
const init = (id: number, level = 'faults') => JSON.stringify({ id, type: 'init', protocol: 2, level, config: cluster });
const reply = (line: string) => JSON.parse(line) as { in_reply_to: number | null; type: string; code?: number; [k: string]: unknown };

describe('the protocol server (PROTOCOL.md) around an in-process system', () => {
  it('init starts a fresh session: state from an earlier session is gone (C1)', () => {
    const server = createProtocolServer(modelSut);
    server.handle(init(1));
    server.handle(JSON.stringify({ id: 2, type: 'record', record: { kind: 'watermark', side: 'L', wm: 3 } }));
    expect(reply(server.handle(JSON.stringify({ id: 3, type: 'inspect' })))['observation']).toMatchObject({ log: 1 });
    server.handle(init(4));
    expect(reply(server.handle(JSON.stringify({ id: 5, type: 'inspect' })))['observation']).toMatchObject({ log: 0 });
  });

  it('refuses a level the system does not support, and requests above the session level', () => {
    const operatorOnly: InProcessSut = { ...modelSut, levels: ['operator'] };
    const server = createProtocolServer(operatorOnly);
    expect(reply(server.handle(init(1, 'cluster')))).toMatchObject({ type: 'error', code: PROTOCOL_ERRORS.not_supported });
    server.handle(JSON.stringify({ id: 2, type: 'init', protocol: 2, level: 'operator', config: cluster.join }));
    expect(reply(server.handle(JSON.stringify({ id: 3, type: 'inspect' })))).toMatchObject({
      in_reply_to: 3,
      code: PROTOCOL_ERRORS.not_supported,
    });
    const full = createProtocolServer(modelSut);
    full.handle(init(1, 'cluster'));
    expect(reply(full.handle(JSON.stringify({ id: 2, type: 'commit', key: 'k1', crashAfterFence: true })))).toMatchObject({
      code: PROTOCOL_ERRORS.not_supported,
    });
  });

  it('turns an exception in the system into internal_error, and a refused config into bad_config', () => {
    const throwing: InProcessSut = {
      ...modelSut,
      cluster: (config) => {
        if (config.workers.length > 2) throw new SutConfigError('at most two workers');
        const inner = createModelCluster(config);
        return {
          ...inner,
          apply: (a) => {
            if (a.type === 'checkpoint') throw new Error('disk full');
            return inner.apply(a);
          },
        };
      },
    };
    const server = createProtocolServer(throwing);
    const three = JSON.stringify({
      id: 1,
      type: 'init',
      protocol: 2,
      level: 'cluster',
      config: { ...cluster, workers: ['w1', 'w2', 'w3'] },
    });
    expect(reply(server.handle(three))).toMatchObject({ code: PROTOCOL_ERRORS.bad_config, text: 'at most two workers' });
    server.handle(init(2, 'cluster'));
    expect(reply(server.handle(JSON.stringify({ id: 3, type: 'checkpoint', worker: 'w1', key: 'k1' })))).toMatchObject({
      in_reply_to: 3,
      code: PROTOCOL_ERRORS.internal_error,
      text: 'disk full',
    });
    expect(reply(server.handle(JSON.stringify({ id: 4, type: 'inspect' }))).type).toBe('inspect_ok');
  });

  it('answers each chunk of lines with one write, and a line over the cap with malformed_request', async () => {
    const input = new PassThrough();
    const writes: string[] = [];
    const done = serveStream(createProtocolServer(modelSut), input, (t) => writes.push(t), 200);
    input.write(`${init(1)}\n${JSON.stringify({ id: 2, type: 'inspect' })}\n{"id":3,"type":"pause","worker":"w2"}\n`);
    input.write(`${'x'.repeat(300)}\n{"id":4,"type":"resume","worker":"w2"}\n`);
    input.end();
    await done;
    expect(writes).toHaveLength(2);
    const first = (writes[0] as string).trimEnd().split('\n').map(reply);
    expect(first.map((r) => r.type)).toEqual(['init_ok', 'inspect_ok', 'pause_ok']);
    const second = (writes[1] as string).trimEnd().split('\n').map(reply);
    expect(second[0]).toMatchObject({ in_reply_to: null, code: PROTOCOL_ERRORS.malformed_request });
    expect(second[1]).toMatchObject({ in_reply_to: 4, type: 'resume_ok' });
  });
});
