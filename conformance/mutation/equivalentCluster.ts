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
    reason: REASONS.deadCase,
    mutants: [
      {
        file: 'impl/cluster/effects.ts',
        line: "case 'process':",
        mutator: 'ConditionalExpression',
        original: "case 'process':\n      return;",
        replacement: "case 'process': // never enabled (see whyNotEnabled)",
      },
      {
        file: 'impl/cluster/effects.ts',
        line: "case 'process':",
        mutator: 'StringLiteral',
        original: "'process'",
        replacement: '""',
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
        original: "dst.status === 'up'",
        replacement: 'true',
      },
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
  {
    reason: REASONS.recoveryOnly,
    mutants: [
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'export function saveCoordinator(c: ClusterState): void {',
        mutator: 'BlockStatement',
        original:
          '{\n  const record: CoordinatorRecord = {\n' +
          '    keys: c.slots.map((s) => ({ key: s.key, owner: (c.workers[s.owner] as ' +
          'Worker).id, epoch: s.epoch })),\n    handoff: c.handoff,\n' +
          '    lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),\n' +
          '  };\n  c.storage.coordinator.save(record);\n}',
        replacement: '{}',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'const record: CoordinatorRecord = {',
        mutator: 'ObjectLiteral',
        original:
          '{\n    keys: c.slots.map((s) => ({ key: s.key, owner: (c.workers[s.owner] as ' +
          'Worker).id, epoch: s.epoch })),\n    handoff: c.handoff,\n' +
          '    lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),\n' +
          '  }',
        replacement: '{}',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'keys: c.slots.map((s) => ({ key: s.key, owner: workerAt(c, s.owner).id, epoch: s.epoch })),',
        mutator: 'ArrowFunction',
        original: '(s) => ({ key: s.key, owner: workerAt(c, s.owner).id, epoch: s.epoch })',
        replacement: '() => undefined',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'keys: c.slots.map((s) => ({ key: s.key, owner: workerAt(c, s.owner).id, epoch: s.epoch })),',
        mutator: 'ObjectLiteral',
        original: '{ key: s.key, owner: workerAt(c, s.owner).id, epoch: s.epoch }',
        replacement: '{}',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),',
        mutator: 'ArrowFunction',
        original: '(s) => (s.lastRelease === undefined ? [] : [s.lastRelease])',
        replacement: '() => undefined',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),',
        mutator: 'ConditionalExpression',
        original: 's.lastRelease === undefined',
        replacement: 'true',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),',
        mutator: 'ConditionalExpression',
        original: 's.lastRelease === undefined',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),',
        mutator: 'EqualityOperator',
        original: 's.lastRelease === undefined',
        replacement: 's.lastRelease !== undefined',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),',
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),',
        mutator: 'ArrayDeclaration',
        original: '[s.lastRelease]',
        replacement: '[]',
      },
    ],
  },
  {
    reason: REASONS.configDefensive,
    mutants: [
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'export function checkConfig(config: ClusterConfig): void {',
        mutator: 'BlockStatement',
        original:
          '{\n  if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ' +
          "ConfigError('config.workers must list at least one worker');\n" +
          '  const workers = new Set<string>();\n  config.workers.forEach((w, i) => {\n' +
          "    if (typeof w !== 'string' || w === '') throw new " +
          'ConfigError(`config.workers[${i}] must be a non-empty string`);\n' +
          '    if (w === COORDINATOR) throw new ConfigError(`config.workers[${i}] must not ' +
          'be "${COORDINATOR}", the coordinator\'s node id`);\n' +
          '    if (workers.has(w)) throw new ConfigError(`config.workers[${i}] repeats ' +
          'worker ${JSON.stringify(w)}`);\n    workers.add(w);\n  });\n' +
          '  if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ' +
          "ConfigError('config.keys must declare at least one key');\n  const keys = new Set<string>();\n" +
          '  config.keys.forEach(({ key, owner }, i) => {\n' +
          "    if (typeof key !== 'string' || key === '') throw new " +
          'ConfigError(`config.keys[${i}].key must be a non-empty string`);\n' +
          '    if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ' +
          '${JSON.stringify(key)}`);\n' +
          '    if (!workers.has(owner)) throw new ConfigError(`config.keys[${i}].owner ' +
          '${JSON.stringify(owner)} is not a listed worker`);\n    keys.add(key);\n  });\n' +
          "  // J0, by the operator's own check.\n  new JoinOperator(config.join);\n}",
        replacement: '{}',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');",
        mutator: 'ConditionalExpression',
        original: '!Array.isArray(config.workers) || config.workers.length === 0',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');",
        mutator: 'LogicalOperator',
        original: '!Array.isArray(config.workers) || config.workers.length === 0',
        replacement: '!Array.isArray(config.workers) && config.workers.length === 0',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');",
        mutator: 'ConditionalExpression',
        original: 'config.workers.length === 0',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');",
        mutator: 'StringLiteral',
        original: "'config.workers must list at least one worker'",
        replacement: '""',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);",
        mutator: 'ConditionalExpression',
        original: "typeof w !== 'string' || w === ''",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);",
        mutator: 'LogicalOperator',
        original: "typeof w !== 'string' || w === ''",
        replacement: "typeof w !== 'string' && w === ''",
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);",
        mutator: 'ConditionalExpression',
        original: "typeof w !== 'string'",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);",
        mutator: 'ConditionalExpression',
        original: "w === ''",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);",
        mutator: 'StringLiteral',
        original: "''",
        replacement: '"Stryker was here!"',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);",
        mutator: 'StringLiteral',
        original: '`config.workers[${i}] must be a non-empty string`',
        replacement: '``',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'if (w === COORDINATOR) throw new ConfigError(`config.workers[${i}] must not be "${COORDINATOR}", the coordinator\'s node id`);',
        mutator: 'ConditionalExpression',
        original: 'w === COORDINATOR',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'if (w === COORDINATOR) throw new ConfigError(`config.workers[${i}] must not be "${COORDINATOR}", the coordinator\'s node id`);',
        mutator: 'StringLiteral',
        original: '`config.workers[${i}] must not be "${COORDINATOR}", the coordinator\'s node id`',
        replacement: '``',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'if (workers.has(w)) throw new ConfigError(`config.workers[${i}] repeats worker ${JSON.stringify(w)}`);',
        mutator: 'ConditionalExpression',
        original: 'workers.has(w)',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'if (workers.has(w)) throw new ConfigError(`config.workers[${i}] repeats worker ${JSON.stringify(w)}`);',
        mutator: 'StringLiteral',
        original: '`config.workers[${i}] repeats worker ${JSON.stringify(w)}`',
        replacement: '``',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');",
        mutator: 'ConditionalExpression',
        original: '!Array.isArray(config.keys) || config.keys.length === 0',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');",
        mutator: 'LogicalOperator',
        original: '!Array.isArray(config.keys) || config.keys.length === 0',
        replacement: '!Array.isArray(config.keys) && config.keys.length === 0',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');",
        mutator: 'ConditionalExpression',
        original: 'config.keys.length === 0',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');",
        mutator: 'StringLiteral',
        original: "'config.keys must declare at least one key'",
        replacement: '""',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'config.keys.forEach(({ key, owner }, i) => {',
        mutator: 'BlockStatement',
        original:
          "{\n    if (typeof key !== 'string' || key === '') throw new " +
          'ConfigError(`config.keys[${i}].key must be a non-empty string`);\n' +
          '    if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ' +
          '${JSON.stringify(key)}`);\n' +
          '    if (!workers.has(owner)) throw new ConfigError(`config.keys[${i}].owner ' +
          '${JSON.stringify(owner)} is not a listed worker`);\n    keys.add(key);\n  }',
        replacement: '{}',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);",
        mutator: 'ConditionalExpression',
        original: "typeof key !== 'string' || key === ''",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);",
        mutator: 'LogicalOperator',
        original: "typeof key !== 'string' || key === ''",
        replacement: "typeof key !== 'string' && key === ''",
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);",
        mutator: 'ConditionalExpression',
        original: "typeof key !== 'string'",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);",
        mutator: 'ConditionalExpression',
        original: "key === ''",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);",
        mutator: 'StringLiteral',
        original: "''",
        replacement: '"Stryker was here!"',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: "if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);",
        mutator: 'StringLiteral',
        original: '`config.keys[${i}].key must be a non-empty string`',
        replacement: '``',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ${JSON.stringify(key)}`);',
        mutator: 'ConditionalExpression',
        original: 'keys.has(key)',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/inputChecks.ts',
        line: 'if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ${JSON.stringify(key)}`);',
        mutator: 'StringLiteral',
        original: '`config.keys[${i}] repeats key ${JSON.stringify(key)}`',
        replacement: '``',
      },
    ],
  },
];
