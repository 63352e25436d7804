// The Postgres interval join (examples/engines/pglite.ts, PGlite): live and
// audited, correct and with a one-character overlap bug, and what Postgres
// does without streamjoin's bookkeeping (engineSuite.ts). One database
// serves every session (it takes seconds to start, tens on a loaded machine).
import { describeEngine } from './engineSuite.ts';

describeEngine('pglite', {
  runs: 20,
  regressions: false,
  differences: {
    // ON CONFLICT DO NOTHING on the row's identity: a redelivery is ignored, as J2 wants.
    'a duplicate insert': { sink: ['insert@2'], verdict: 'valid' },
    'a duplicate insert, then one retraction': { sink: ['insert@2', 'retract@4'], verdict: 'valid' },
    // The DELETE leaves nothing behind: the row and its match live again.
    'a re-insert after a retraction': { sink: ['insert@2', 'retract@3', 'insert@4'], verdict: 'violation' },
    'a retraction before its insert': { sink: ['insert@3'], verdict: 'violation' },
    'a late row': { sink: ['insert@4'], verdict: 'violation' },
    'a late retraction': { sink: ['insert@2', 'retract@5'], verdict: 'violation' },
    // The DELETE is by identity: other content deletes the row all the same.
    'a retraction with other content': { sink: ['insert@2', 'retract@3'], verdict: 'violation' },
    'a retraction with other content, then a row only it overlaps': { sink: ['insert@2', 'retract@3'], verdict: 'violation' },
  },
});
