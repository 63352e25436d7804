// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the entries quote source text, template literals included
// Equivalent mutants of the operator's checks, counters and row bookkeeping (impl/operator.ts),
// each under its argument (equivalentReasons.ts); its matches and changes are in
// equivalentMatches.ts. equivalent.ts gathers every area's list.
import { type EquivalentMutant, REASONS } from './equivalentReasons.ts';

export const OPERATOR_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.emptyKey,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'get rowCount(): number {',
        mutator: 'BlockStatement',
        original: '{\n    return this.bindings.L.size + this.bindings.R.size;\n  }',
        replacement: '{}',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (ks.rowCount === 0) this.keys.delete(ks.key);',
        mutator: 'ConditionalExpression',
        original: 'ks.rowCount === 0',
        replacement: 'false',
      },
    ],
  },
  {
    reason: REASONS.j0,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;',
        mutator: 'ConditionalExpression',
        original: 'Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;',
        mutator: 'LogicalOperator',
        original: 'Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX',
        replacement: 'Number.isSafeInteger(b) && b >= 0 || b <= BOUND_MAX',
      },
      {
        file: 'impl/operator.ts',
        line: 'const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;',
        mutator: 'ConditionalExpression',
        original: 'Number.isSafeInteger(b) && b >= 0',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;',
        mutator: 'LogicalOperator',
        original: 'Number.isSafeInteger(b) && b >= 0',
        replacement: 'Number.isSafeInteger(b) || b >= 0',
      },
      {
        file: 'impl/operator.ts',
        line: 'const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;',
        mutator: 'ConditionalExpression',
        original: 'b >= 0',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const isBound = (b: number): boolean => Number.isSafeInteger(b) && b >= 0 && b <= BOUND_MAX;',
        mutator: 'ConditionalExpression',
        original: 'b <= BOUND_MAX',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (!isBound(config.allowedLateness)) {',
        mutator: 'ConditionalExpression',
        original: '!isBound(config.allowedLateness)',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (!isBound(config.allowedLateness)) {',
        mutator: 'BlockStatement',
        original:
          '{\n      throw new ConfigError(`J0: allowedLateness must be an integer in [0, 2^50], got ${String(config.allowedLateness)}`);\n    }',
        replacement: '{}',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (!isBound(config.maxIntervalLength)) {',
        mutator: 'ConditionalExpression',
        original: '!isBound(config.maxIntervalLength)',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (!isBound(config.maxIntervalLength)) {',
        mutator: 'BlockStatement',
        original:
          '{\n      throw new ConfigError(`J0: maxIntervalLength must be an integer in [0, 2^50], got ${String(config.maxIntervalLength)}`);\n    }',
        replacement: '{}',
      },
    ],
  },
  {
    reason: REASONS.counters,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'private readonly work: EvictionWork = { heapEntriesExamined: 0, matchEntriesExamined: 0 };',
        mutator: 'ObjectLiteral',
        original: '{ heapEntriesExamined: 0, matchEntriesExamined: 0 }',
        replacement: '{}',
      },
      {
        file: 'impl/operator.ts',
        line: 'return { ...this.count, rejected: { ...this.count.rejected } };',
        mutator: 'ObjectLiteral',
        original: '{ ...this.count.rejected }',
        replacement: '{}',
      },
      {
        file: 'impl/operator.ts',
        line: 'this.count.accepted++;',
        before: '}',
        mutator: 'UpdateOperator',
        original: 'this.count.accepted++',
        replacement: 'this.count.accepted--',
      },
      {
        file: 'impl/operator.ts',
        line: 'this.work.heapEntriesExamined++;',
        mutator: 'UpdateOperator',
        original: 'this.work.heapEntriesExamined++',
        replacement: 'this.work.heapEntriesExamined--',
      },
      {
        file: 'impl/operator.ts',
        line: 'this.work.matchEntriesExamined++;',
        mutator: 'UpdateOperator',
        original: 'this.work.matchEntriesExamined++',
        replacement: 'this.work.matchEntriesExamined--',
      },
      {
        file: 'impl/operator.ts',
        line: 'Object.assign(op.count, { ...c, rejected: { ...c.rejected } });',
        mutator: 'ObjectLiteral',
        original: '{ ...c, rejected: { ...c.rejected } }',
        replacement: '{}',
      },
    ],
  },
  {
    reason: REASONS.j0Message,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'throw new ConfigError(`J0: allowedLateness must be an integer in [0, 2^50], got ${String(config.allowedLateness)}`);',
        mutator: 'StringLiteral',
        original: '`J0: allowedLateness must be an integer in [0, 2^50], got ${String(config.allowedLateness)}`',
        replacement: '``',
      },
      {
        file: 'impl/operator.ts',
        line: 'throw new ConfigError(`J0: maxIntervalLength must be an integer in [0, 2^50], got ${String(config.maxIntervalLength)}`);',
        mutator: 'StringLiteral',
        original: '`J0: maxIntervalLength must be an integer in [0, 2^50], got ${String(config.maxIntervalLength)}`',
        replacement: '``',
      },
    ],
  },
  {
    reason: REASONS.perKeyOperator,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'if (key === undefined) return { ...this.totals };',
        mutator: 'ConditionalExpression',
        original: 'key === undefined',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'op.totals.live++;',
        mutator: 'UpdateOperator',
        original: 'op.totals.live++',
        replacement: 'op.totals.live--',
      },
      {
        file: 'impl/operator.ts',
        line: 'op.totals.tombstones++;',
        mutator: 'UpdateOperator',
        original: 'op.totals.tombstones++',
        replacement: 'op.totals.tombstones--',
      },
      {
        file: 'impl/operator.ts',
        line: 'op.totals.matches++;',
        mutator: 'UpdateOperator',
        original: 'op.totals.matches++',
        replacement: 'op.totals.matches--',
      },
    ],
  },
  {
    reason: REASONS.uniqueOrder,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'return [...this.keys.keys()].sort(compareCodePoints);',
        mutator: 'MethodExpression',
        original: '[...this.keys.keys()].sort(compareCodePoints)',
        replacement: '[...this.keys.keys()]',
      },
      {
        file: 'impl/operator.ts',
        line: 'const ids = [...ks.bindings[side].keys()].sort(compareCodePoints);',
        mutator: 'MethodExpression',
        original: '[...ks.bindings[side].keys()].sort(compareCodePoints)',
        replacement: '[...ks.bindings[side].keys()]',
      },
      {
        file: 'impl/operator.ts',
        line: 'matches.sort((a, b) => compareCodePoints(a.id, b.id));',
        mutator: 'MethodExpression',
        original: 'matches.sort((a, b) => compareCodePoints(a.id, b.id))',
        replacement: 'matches',
      },
      {
        file: 'impl/operator.ts',
        line: 'matches.sort((a, b) => compareCodePoints(a.id, b.id));',
        mutator: 'ArrowFunction',
        original: '(a, b) => compareCodePoints(a.id, b.id)',
        replacement: '() => undefined',
      },
    ],
  },
];
