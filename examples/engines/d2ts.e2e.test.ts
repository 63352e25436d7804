// The d2ts interval join (examples/engines/d2ts.ts): live and audited,
// correct and with a one-character overlap bug, and what d2ts does without
// streamjoin's bookkeeping (engineSuite.ts).
import { describeEngine } from './engineSuite.ts';

describeEngine('d2ts', {
  runs: 100,
  regressions: true,
  differences: {
    // A multiset: the redelivered row counts twice, and so does its match.
    'a duplicate insert': { sink: ['insert@2', 'insert@3'], verdict: 'violation' },
    'a duplicate insert, then one retraction': { sink: ['insert@2', 'insert@3', 'retract@4'], verdict: 'violation' },
    'a re-insert after a retraction': { sink: ['insert@2', 'retract@3', 'insert@4'], verdict: 'violation' },
    // The retraction is a row of multiplicity -1: it joins, and retracts a match never inserted.
    'a retraction before its insert': { sink: ['retract@2', 'insert@3'], verdict: 'violation' },
    'a late row': { sink: ['insert@4'], verdict: 'violation' },
    'a late retraction': { sink: ['insert@2', 'retract@5'], verdict: 'violation' },
    // The retraction's row (other content) is a row of multiplicity -1 of its own: it cancels the match, not the row.
    'a retraction with other content': { sink: ['insert@2', 'retract@3'], verdict: 'violation' },
    // ... and that row of multiplicity -1 stays: a later row it overlaps gets a match of multiplicity -1.
    'a retraction with other content, then a row only it overlaps': { sink: ['insert@2', 'retract@3', 'retract@4'], verdict: 'violation' },
  },
});
