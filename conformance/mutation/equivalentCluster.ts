// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the entries quote source text, template literals included
// Equivalent mutants of the cluster's coordination (impl/cluster/: clusterState.ts, effects.ts,
// eager.ts, inputChecks.ts), each under its argument (equivalentReasons.ts). equivalent.ts
// gathers every area's list.
import { type EquivalentMutant, REASONS } from './equivalentReasons.ts';

export const CLUSTER_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.perKeyOperator,
    mutants: [
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'if (row.key !== checkpoint.key) continue;',
        mutator: 'ConditionalExpression',
        original: 'row.key !== checkpoint.key',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'for (const m of checkpoint.state.matches) if (m.key === checkpoint.key) matches++;',
        mutator: 'ConditionalExpression',
        original: 'm.key === checkpoint.key',
        replacement: 'true',
      },
    ],
  },
  {
    reason: REASONS.crashWindow,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "if (h.phase === 'installed') {",
        mutator: 'ConditionalExpression',
        original: "h.phase === 'installed'",
        replacement: 'true',
      },
      {
        file: 'impl/cluster/effects.ts',
        line: '} else {',
        before: '}',
        mutator: 'BlockStatement',
        original:
          '{\n        // Phase fenced: the fence part ran before a crash. Raising the fence again is a\n' +
          '        // no-op unless that crash fell between writing the phase and raising the fence.\n' +
          '        c.sink.raiseFence(h.key, h.from + 1);\n      }',
        replacement: '{}',
      },
      {
        file: 'impl/cluster/effects.ts',
        line: 'c.sink.raiseFence(h.key, h.from + 1);',
        mutator: 'ArithmeticOperator',
        original: 'h.from + 1',
        replacement: 'h.from - 1',
      },
    ],
  },
  {
    reason: REASONS.releaseToDown,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "if (workerNamed(c, h.src).status === 'up') deliverRelease(c, message, events);",
        mutator: 'ConditionalExpression',
        original: "workerNamed(c, h.src).status === 'up'",
        replacement: 'true',
      },
    ],
  },
  {
    reason: REASONS.abortSource,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "if (src.status === 'up' && srcCopy !== undefined && srcCopy.frozen && srcCopy.epoch === h.from) {",
        mutator: 'LogicalOperator',
        original: "src.status === 'up' && srcCopy !== undefined",
        replacement: "src.status === 'up' || srcCopy !== undefined",
      },
      {
        file: 'impl/cluster/effects.ts',
        line: "if (src.status === 'up' && srcCopy !== undefined && srcCopy.frozen && srcCopy.epoch === h.from) {",
        mutator: 'ConditionalExpression',
        original: "src.status === 'up'",
        replacement: 'true',
      },
      {
        file: 'impl/cluster/effects.ts',
        line: "if (src.status === 'up' && srcCopy !== undefined && srcCopy.frozen && srcCopy.epoch === h.from) {",
        mutator: 'ConditionalExpression',
        original: 'srcCopy !== undefined',
        replacement: 'true',
      },
      {
        file: 'impl/cluster/effects.ts',
        line: "if (src.status === 'up' && srcCopy !== undefined && srcCopy.frozen && srcCopy.epoch === h.from) {",
        mutator: 'ConditionalExpression',
        original: 'srcCopy.epoch === h.from',
        replacement: 'true',
      },
    ],
  },
  {
    reason: REASONS.abortDestination,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "if (dst.status === 'up' && dstCopy !== undefined && dstCopy.frozen && dstCopy.epoch === h.from + 1) {",
        mutator: 'ConditionalExpression',
        original: 'dstCopy.epoch === h.from + 1',
        replacement: 'true',
      },
    ],
  },
  {
    reason: REASONS.fencePartPhase,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "phase: 'fenced',",
        mutator: 'StringLiteral',
        original: "'fenced'",
        replacement: '""',
      },
    ],
  },
  {
    reason: REASONS.watermarkSlot,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "const slot = record.kind === 'watermark' ? undefined : c.slotByKey.get(record.key);",
        mutator: 'ConditionalExpression',
        original: "record.kind === 'watermark'",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/effects.ts',
        line: "const slot = record.kind === 'watermark' ? undefined : c.slotByKey.get(record.key);",
        mutator: 'StringLiteral',
        original: "'watermark'",
        replacement: '""',
      },
    ],
  },
  {
    reason: REASONS.wakeHint,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: 'if (slot === undefined) {',
        mutator: 'ConditionalExpression',
        original: 'slot === undefined',
        replacement: 'true',
      },
      {
        file: 'impl/cluster/effects.ts',
        line: "for (const w of c.workers) if (w.status === 'up') for (const order of w.copies.keys()) wake(c, runnable, w, slotAt(c, order));",
        mutator: 'ConditionalExpression',
        original: "w.status === 'up'",
        replacement: 'true',
      },
    ],
  },
  {
    reason: REASONS.perfShortcut,
    mutants: [
      {
        file: 'impl/cluster/eager.ts',
        line: 'if (runnable.size === 0) return;',
        mutator: 'ConditionalExpression',
        original: 'runnable.size === 0',
        replacement: 'false',
      },
    ],
  },
];
