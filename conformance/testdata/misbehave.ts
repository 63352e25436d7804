// Test systems under test that misbehave (conformance/adapters/process.e2e.test.ts, cli/conform.e2e.test.ts).
// Each serves the reference model correctly for its first N request lines
// (default 4: the handshake and a little more), then does what MODE says:
//
//   hang         stops answering (and leaves a grandchild `sleep` running, to
//                check that the harness kills the whole process group)
//   exit         writes a line to stderr and exits with code 3
//   text         writes a line that is not JSON
//   huge         writes a 10 MB line
//   unsolicited  writes a JSON object that answers nothing
//   wrong-id     answers with an in_reply_to no request has
//   ablate:ELEMENT  never misbehaves at the protocol level, but serves the
//                model with a protocol element switched off (SPEC §6): a
//                wrong implementation with a well-formed protocol
//
// Usage: node --import tsx conformance/testdata/misbehave.ts MODE [N]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createProtocolServer } from '../adapters/protocolServer.ts';
import { modelSut } from '../adapters/modelSut.ts';
import { createModelCluster } from '../adapters/modelCluster.ts';
import { PROTOCOL_ELEMENTS, type ProtocolElement } from '../../model/cluster/clusterState.ts';

const mode = process.argv[2] ?? 'hang';
const after = Number(process.argv[3] ?? 4);

const ablated = mode.startsWith('ablate:') ? (mode.slice('ablate:'.length) as ProtocolElement) : undefined;
if (ablated && !PROTOCOL_ELEMENTS.includes(ablated)) {
  process.stderr.write(`misbehave: unknown protocol element ${ablated}\n`);
  process.exit(254);
}
const server = createProtocolServer(
  ablated
    ? {
        ...modelSut,
        implementation: { name: `model-without-${ablated}`, version: '0' },
        cluster: (config) => createModelCluster({ ...config, ablate: [ablated] }),
      }
    : modelSut,
);

let seen = 0;
let stopped = false;
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (stopped) return;
  seen++;
  process.stderr.write(`misbehave: request ${seen}\n`);
  if (ablated || seen <= after) {
    process.stdout.write(`${server.handle(line)}\n`);
    return;
  }
  const id = (JSON.parse(line) as { id: number }).id;
  switch (mode) {
    case 'hang':
      stopped = true;
      process.stderr.write('misbehave: hanging now\n');
      spawn('sleep', ['300'], { stdio: 'ignore' });
      setInterval(() => {}, 1 << 30);
      return;
    case 'exit':
      process.stderr.write('misbehave: simulated crash\n');
      process.exit(3);
      return;
    case 'text':
      process.stdout.write('this is not JSON\n');
      return;
    case 'huge':
      process.stdout.write(`${'x'.repeat(10 * 1024 * 1024)}\n`);
      return;
    case 'unsolicited':
      process.stdout.write('{"hello":"world"}\n');
      return;
    case 'wrong-id':
      process.stdout.write(`${JSON.stringify({ in_reply_to: id + 1000, type: 'error', code: 19, text: 'wrong id' })}\n`);
      return;
    default:
      process.stderr.write(`misbehave: unknown mode ${mode}\n`);
      process.exit(254);
  }
});
