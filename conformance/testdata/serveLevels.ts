// Serves the implementation (impl/) over the conformance protocol at some levels only,
// as an implementation that supports only those would: its handshake lists
// them and it refuses the others (PROTOCOL.md, "Sessions and levels"). For
// the tests that run `conform` against an operator-only system over the
// process (conformance/power.test.ts).
//
// Usage: node --import tsx conformance/testdata/serveLevels.ts LEVEL[,LEVEL...]
import { LEVELS, type Level } from '../../spec/index.ts';
import { createProtocolServer, serveStream } from '../adapters/protocolServer.ts';
import { implSut } from '../adapters/implSut.ts';
import { onlyLevels } from './wrongSystems.ts';

const levels = (process.argv[2] ?? 'operator').split(',') as Level[];
if (levels.some((l) => !LEVELS.includes(l))) {
  process.stderr.write(`serveLevels: levels must be among ${LEVELS.join(', ')}\n`);
  process.exit(254);
}
await serveStream(createProtocolServer(onlyLevels(implSut, levels)), process.stdin, (text) => process.stdout.write(text));
