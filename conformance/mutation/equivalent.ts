// Mutants of impl/ that no conforming behaviour can tell from the
// implementation, each with the argument (docs/mutation.md): the harness
// cannot kill them because there is nothing to observe. A survivor is listed
// here only with a reason; score.ts matches a report's survivors to these
// entries by file, source line, mutator, the code replaced and its
// replacement (layout aside), so an entry goes stale, and its mutant counts as an open survivor
// again, as soon as the code it argues about changes.

/** One mutant: its file and source line (the code on it), which mutator, the code it replaces and its replacement (as Stryker reports them). */
export interface EquivalentSite {
  readonly file: string;
  readonly line: string;
  readonly mutator: string;
  readonly original: string;
  readonly replacement: string;
}

/** Mutants equivalent for one reason. */
export interface EquivalentMutant {
  readonly reason: string;
  readonly mutants: readonly EquivalentSite[];
}

export const EQUIVALENT_MUTANTS: readonly EquivalentMutant[] = [
  // impl/cluster/sink.ts
  {
    reason:
      'Not reachable through the protocol: relation() serves ImplCluster.sinkRelation(), which the durability tests call (impl/cluster/cluster.durability.test.ts); no reply or observation uses it.',
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'relation(): string[] {',
        mutator: 'BlockStatement',
        original: "{\n    return this.ids().filter((id) => this.matches.get(id) === 'inserted');\n  }",
        replacement: '{}',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "return this.ids().filter((id) => this.matches.get(id) === 'inserted');",
        mutator: 'MethodExpression',
        original: "this.ids().filter((id) => this.matches.get(id) === 'inserted')",
        replacement: 'this.ids()',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "return this.ids().filter((id) => this.matches.get(id) === 'inserted');",
        mutator: 'ArrowFunction',
        original: "(id) => this.matches.get(id) === 'inserted'",
        replacement: '() => undefined',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "return this.ids().filter((id) => this.matches.get(id) === 'inserted');",
        mutator: 'ConditionalExpression',
        original: "this.matches.get(id) === 'inserted'",
        replacement: 'true',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "return this.ids().filter((id) => this.matches.get(id) === 'inserted');",
        mutator: 'ConditionalExpression',
        original: "this.matches.get(id) === 'inserted'",
        replacement: 'false',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "return this.ids().filter((id) => this.matches.get(id) === 'inserted');",
        mutator: 'EqualityOperator',
        original: "this.matches.get(id) === 'inserted'",
        replacement: "this.matches.get(id) !== 'inserted'",
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "return this.ids().filter((id) => this.matches.get(id) === 'inserted');",
        mutator: 'StringLiteral',
        original: "'inserted'",
        replacement: '""',
      },
    ],
  },
  {
    reason:
      'A listed id with no state. An id in the listing that the sink never wrote maps to no state, and a member whose value is undefined is no member of a JSON object: the observation is the same (in process and over the protocol alike).',
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
    reason:
      "The kind of a write entry is read back only by applyEntry, which tests for 'fence'; with the in-memory journal the entry is never read again (the on-disk journal, which recovery reads, is outside this measurement). Any other string behaves as 'write'.",
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
    reason:
      'Performance only: raiseFence skips a raise that would not move the fence. Journaling the no-op raise anyway (or also an equal one) leaves the fence at max(fence, epoch), unchanged: nothing observable.',
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
    reason:
      "The result of applying a fence entry is not used: raiseFence ignores it (only a write's result, fenced or not, is returned to the writer).",
    mutants: [{ file: 'impl/cluster/sink.ts', line: 'return false;', mutator: 'BooleanLiteral', original: 'false', replacement: 'true' }],
  },
  {
    reason:
      'A sink rule the protocol makes unreachable: a write that is not fenced has an epoch equal to the fence, never above it. C7 and C8 raise the fence to the new epoch before any copy holds that epoch (the fence part runs first), and a restart recovers at epoch[k], which the fence already reached. So max(fence, epoch) and min(fence, epoch) are both the fence.',
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: 'this.fence.set(entry.key, Math.max(highest, entry.epoch));',
        mutator: 'MethodExpression',
        original: 'Math.max(highest, entry.epoch)',
        replacement: 'Math.min(highest, entry.epoch)',
      },
    ],
  },
  {
    reason:
      "Order of the ids the sink lists. observe() lists match ids in §0 order, but the observation's `sink.matches` is a JSON object: §7 compares observations as objects, member order aside, so a mutant that lists the ids in another order, twice, or merges them late, shows the same observation. The ordering exists for people reading a trace (a stable layout), and for `relation()`, which the protocol does not expose.",
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
    reason:
      'defineOwn gives a member named `__proto__` its own property; the observation object it builds is new on every observe() and never written again, so whether that property is writable or configurable changes nothing anyone can see.',
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: "if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });",
        mutator: 'BooleanLiteral',
        original: 'true',
        replacement: 'false',
      },
      {
        file: 'impl/cluster/sink.ts',
        line: "if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });",
        mutator: 'BooleanLiteral',
        original: 'true',
        replacement: 'false',
      },
    ],
  },
];
