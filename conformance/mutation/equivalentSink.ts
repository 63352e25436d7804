// Equivalent mutants of the cluster sink (impl/cluster/sink.ts), each under its argument
// (equivalentReasons.ts). equivalent.ts gathers every area's list.
import { type EquivalentMutant, type EquivalentSite, REASONS } from './equivalentReasons.ts';

/** A flag of the property defineOwn gives a member named `__proto__`; the line holds three, told apart by column. */
const DEFINE_OWN_FLAG: EquivalentSite = {
  file: 'impl/cluster/sink.ts',
  line: "if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });",
  mutator: 'BooleanLiteral',
  original: 'true',
  replacement: 'false',
};

export const SINK_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.order,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'if (now === undefined) this.newIds.push(c.match);',
        mutator: 'ConditionalExpression',
        original: 'now === undefined',
        replacement: 'true',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'if (this.newIds.length > 0) {',
        mutator: 'ConditionalExpression',
        original: 'this.newIds.length > 0',
        replacement: 'true',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'if (this.newIds.length > 0) {',
        mutator: 'EqualityOperator',
        original: 'this.newIds.length > 0',
        replacement: 'this.newIds.length >= 0',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'this.sortedIds = mergeSorted(this.sortedIds, this.newIds.sort(compareCodePoints));',
        mutator: 'MethodExpression',
        original: 'this.newIds.sort(compareCodePoints)',
        replacement: 'this.newIds',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'const out: string[] = new Array<string>(a.length + b.length);',
        mutator: 'ArrayDeclaration',
        original: 'new Array<string>(a.length + b.length)',
        replacement: 'new Array()',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'while (i < a.length && j < b.length)',
        mutator: 'EqualityOperator',
        original: 'j < b.length',
        replacement: 'j >= b.length',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'out[k++] = compareCodePoints(a[i] as string, b[j] as string) < 0 ? (a[i++] as string) : (b[j++] as string);',
        mutator: 'ConditionalExpression',
        original: 'compareCodePoints(a[i] as string, b[j] as string) < 0',
        replacement: 'true',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'out[k++] = compareCodePoints(a[i] as string, b[j] as string) < 0 ? (a[i++] as string) : (b[j++] as string);',
        mutator: 'ConditionalExpression',
        original: 'compareCodePoints(a[i] as string, b[j] as string) < 0',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'out[k++] = compareCodePoints(a[i] as string, b[j] as string) < 0 ? (a[i++] as string) : (b[j++] as string);',
        mutator: 'EqualityOperator',
        original: 'compareCodePoints(a[i] as string, b[j] as string) < 0',
        replacement: 'compareCodePoints(a[i] as string, b[j] as string) <= 0',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'out[k++] = compareCodePoints(a[i] as string, b[j] as string) < 0 ? (a[i++] as string) : (b[j++] as string);',
        mutator: 'EqualityOperator',
        original: 'compareCodePoints(a[i] as string, b[j] as string) < 0',
        replacement: 'compareCodePoints(a[i] as string, b[j] as string) >= 0',
      },
    ],
  },
  {
    reason: REASONS.phantom,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'private newIds: string[] = [];',
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'private sortedIds: string[] = [];',
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'this.newIds = [];',
        mutator: 'ArrayDeclaration',
        original: '[]',
        replacement: '["Stryker was here"]',
      },
    ],
  },
  {
    reason: REASONS.kind,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: "const entry: SinkEntry = { kind: 'write', key, epoch, changes: changes.map((c) => ({ op: c.op, match: c.match })) };",
        mutator: 'StringLiteral',
        original: "'write'",
        replacement: '""',
      },
    ],
  },
  {
    reason: REASONS.raise,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'if (epoch <= this.fenceOf(key)) return;',
        mutator: 'ConditionalExpression',
        original: 'epoch <= this.fenceOf(key)',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: 'if (epoch <= this.fenceOf(key)) return;',
        mutator: 'EqualityOperator',
        original: 'epoch <= this.fenceOf(key)',
        replacement: 'epoch < this.fenceOf(key)',
      },
    ],
  },
  {
    reason: REASONS.fenceReturn,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'return false;',
        before: 'this.fence.set(entry.key, Math.max(highest, entry.epoch));',
        mutator: 'BooleanLiteral',
        original: 'false',
        replacement: 'true',
      },
    ],
  },
  {
    reason: REASONS.maxWrite,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'this.fence.set(entry.key, Math.max(highest, entry.epoch));',
        before: '}',
        mutator: 'MethodExpression',
        original: 'Math.max(highest, entry.epoch)',
        replacement: 'Math.min(highest, entry.epoch)',
      },
    ],
  },
  {
    reason: REASONS.descriptor,
    mutants: [
      // `writable` and `configurable`; `enumerable` (column 86) is killed.
      { ...DEFINE_OWN_FLAG, column: 102 },
      { ...DEFINE_OWN_FLAG, column: 122 },
    ],
  },
];
