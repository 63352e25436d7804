// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the entries quote source text, template literals included
// Mutants of impl/ that no conforming behaviour can tell from the
// implementation, each with the argument (docs/mutation.md): the harness
// cannot kill them because there is nothing to observe. A survivor is listed
// here only with a reason; score.ts matches a report's mutants to these
// entries by file, source line, mutator, the code replaced and its
// replacement (layout aside), so an entry goes stale, and its mutant counts
// as an open survivor again, as soon as the code it argues about changes
// (score.test.ts fails on a stale entry).

/** One mutant: its file and source line (the code on it), which mutator, the code it replaces and its replacement (as Stryker reports them). */
export interface EquivalentSite {
  readonly file: string;
  readonly line: string;
  /** The line before it, when the same line occurs more than once in the file. */
  readonly before?: string;
  readonly mutator: string;
  readonly original: string;
  readonly replacement: string;
}

/** Mutants equivalent for one reason. */
export interface EquivalentMutant {
  readonly reason: string;
  readonly mutants: readonly EquivalentSite[];
}

/** The arguments, by name. */
export const REASONS = {
  order:
    "Order of the ids the sink lists. observe() lists match ids in §0 order, but the observation's `sink.matches` is a JSON object: §7 compares observations as objects, member order aside, so a mutant that lists the ids in another order, twice, or merges them late, shows the same observation. The ordering exists for people reading a trace (a stable layout), and for `relation()`, which the protocol does not expose.",
  phantom:
    'A listed id with no state. An id in the listing that the sink never wrote maps to no state, and a member whose value is undefined is no member of a JSON object: the observation is the same (in process and over the protocol alike).',
  kind: "The kind of a write entry is read back only by applyEntry, which tests for 'fence'; with the in-memory journal the entry is never read again (the on-disk journal, which recovery reads, is outside this measurement). Any other string behaves as 'write'.",
  raise:
    'Performance only: raiseFence skips a raise that would not move the fence. Journaling the no-op raise anyway (or also an equal one) leaves the fence at max(fence, epoch), unchanged: nothing observable.',
  fenceReturn:
    "The result of applying a fence entry is not used: raiseFence ignores it (only a write's result, fenced or not, is returned to the writer).",
  maxWrite:
    'A sink rule the protocol makes unreachable: a write that is not fenced has an epoch equal to the fence, never above it. C7 and C8 raise the fence to the new epoch before any copy holds that epoch (the fence part runs first), and a restart recovers at epoch[k], which the fence already reached. So max(fence, epoch) and min(fence, epoch) are both the fence.',
  relation:
    'Not reachable through the protocol: relation() serves ImplCluster.sinkRelation(), which the durability tests call (impl/cluster/cluster.durability.e2e.test.ts); no reply or observation uses it.',
  descriptor:
    'defineOwn gives a member named `__proto__` its own property; the observation object it builds is new on every observe() and never written again, so whether that property is writable or configurable changes nothing anyone can see.',
  emptyKey:
    "An empty key's bookkeeping kept: `rowCount` tells when a key has no row left, so that its (empty) state can be dropped. Keeping it holds no row, tombstone or match, so every retained count, outcome and change is the same; it costs memory only.",
  changeOrder:
    "Order of a record's changes. J7: the changes of one record are a set; their canonical order is by match id, and comparisons treat them as sets (the harness sorts both sides, canonicalChanges). The operator sorts them (compareMatches, with a fast path for ids without UTF-16 surrogates chosen by the `plain` flags) for stable output only: a mutant that orders them otherwise, or takes the slow path for every id, changes nothing the harness may compare.",
  slotInit:
    'The initial slot of a match (-1) is overwritten by addMatch before anything reads it: every match is added to the lists of its endpoints when it is made, and restored ones too.',
  j0: "A defensive check: J0's range of L and D. No configuration outside it reaches the operator: the harness checks every configuration against the spec (clusterConfigProblem, the config schema) before opening a session, and so does the protocol server (bad_config). Accepting an out-of-range configuration here is unobservable; the operator's own unit tests pin the refusal (impl/operator.test.ts).",
  escapeFastPath:
    'Performance only: escapeMatchIdPart returns a part unchanged when it holds neither `%` nor `/`, before the loop that escapes. Without the shortcut (or with a test for the empty string, which every string contains), the loop copies such a part character by character to the same string.',
  counters:
    "Statistics only: the operator's counters (accepted, duplicate, late, stale, rejected by reason, evicted) and its eviction-work counts are read by benchmarks and carried in snapshots, never by the protocol: no reply or observation holds them and no decision reads them. A snapshot's counter must be a count (restoring checks it is not negative), so only a mutant that keeps every counter non-negative is equivalent: the work counts are never snapshotted; `rejected` restored empty reads as zeros; accepted retractions of live rows never outnumber the accepted inserts that made those rows.",
  j0Message: "The text of J0's ConfigError, thrown only for a configuration the harness never sends (see J0's range above); not reached.",
  defensiveKind:
    "A defensive check: a record of a kind other than insert, retract and watermark never reaches the operator (the trace schema and the protocol's request schema refuse it, and the cluster copies records by kind before anything else).",
  perKeyOperator:
    "`retained(key)` of an operator holding one key: every copy in the cluster has its own operator for its one key (C2), so the totals and that key's counts are the same numbers. The same holds for the operator's totals after a restore and for the rows of other keys in a checkpoint (there are none).",
  uniqueOrder:
    'The order number of a row is a tie-breaker that only has to be unique (the interval tree and the horizon heap order rows by it after their times); counting down instead of up keeps it unique. Snapshots list keys in §0 order for byte-stable checkpoints; restoring does not depend on that order.',
  deadCase:
    "Dead code: a `process` action is never enabled (§7: processing is eager, so whyNotEnabled refuses every process step), so the effect's case for it never runs; renaming the case label changes nothing that runs.",
  crashWindow:
    "Only a crash inside one durable write step makes this differ. A commit in phase `fenced` re-raises the fence in case the coordinator crashed after writing the phase and before raising the fence; in the in-memory cluster the harness runs, a protocol crash falls between actions, so the fence is always already raised by then and raising it again (or not, or lower) changes nothing. The on-disk backend's crash tests (cluster.durability.e2e.test.ts) kill a process at every write point.",
  releaseToDown:
    'A release sent to a source that is down: it holds no copy (a crash drops them all, C10), so delivering it drops nothing, as not delivering it does.',
  abortSource:
    "The abort's test of the source: a down worker holds no copy (a crash drops them all, C10), and while a migration is in flight before the fence an up source always holds a copy of the key at epoch `from` (frozen, or active after a restart recovered it: the table still names it the owner). So the sub-conditions `src.status === 'up'` and `srcCopy !== undefined` never decide alone.",
  abortDestination:
    "The abort's test of the destination: a down worker holds no copy (a crash drops them all, C10), and a frozen copy at the destination of an in-flight migration is always the one install made, at epoch `from + 1`. So `dst.status === 'up'` and the epoch test never decide alone.",
  fencePartPhase:
    "The phase written with a failover's first record is replaced at once: fencePart writes the record with phase `fenced` whatever phase it is given.",
  watermarkSlot: 'A watermark has no key: looking its slot up by `record.key` (undefined) finds none, as not looking it up does.',
  wakeHint:
    'Waking is a hint: `wake` marks copies for eager processing to look at, and processing decides by itself (canProcess: the worker up, the copy not frozen, a relevant record at or after its cursor). Waking more copies than the record concerns (every copy of every up worker, or the copies of a paused worker) finds nothing more to process.',
  perfShortcut:
    'Performance only: a shortcut for an empty or one-element result (return at once when no match was made, skip sorting a single change) that gives the same result as the general code it skips.',
  preallocation:
    'Performance only: the change list is allocated at its final length; an array that grows as it is filled holds the same changes.',
  recoveryOnly:
    "Written for recovery only: the coordinator's durable record (and the other durable parts' contents) are read back only when a cluster is reopened after a whole-cluster crash (recovery.ts, left out above: no protocol action reopens a cluster). In a running cluster every decision reads the in-memory table and handoff record, so what the durable copy holds is not observable through the protocol; cluster.durability.e2e.test.ts checks it by reopening.",
  configDefensive:
    "A defensive check: the cluster configuration's shape (workers listed, names non-empty and distinct, keys declared with known owners). No configuration that fails it reaches the cluster: the harness checks every configuration against the spec (clusterConfigProblem) before opening a session, and so does the protocol server (bad_config); the cluster's own unit tests pin the refusal.",
} as const;

export const EQUIVALENT_MUTANTS: readonly EquivalentMutant[] = [
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
    reason: REASONS.relation,
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
    reason: REASONS.descriptor,
    mutants: [
      {
        file: 'impl/cluster/sink.ts',
        line: "if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });",
        mutator: 'BooleanLiteral',
        original: 'true',
        replacement: 'false',
      },
    ],
  },
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
    reason: REASONS.changeOrder,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'this.plainKey = !hasSurrogate(key);',
        mutator: 'BooleanLiteral',
        original: '!hasSurrogate(key)',
        replacement: 'hasSurrogate(key)',
      },
      {
        file: 'impl/operator.ts',
        line: 'this.plainId = !hasSurrogate(id);',
        mutator: 'BooleanLiteral',
        original: '!hasSurrogate(id)',
        replacement: 'hasSurrogate(id)',
      },
      {
        file: 'impl/operator.ts',
        line: 'function compareMatches(a: MatchEntry, b: MatchEntry): number {',
        mutator: 'BlockStatement',
        original: '{\n  if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;\n  return compareCodePoints(a.id, b.id);\n}',
        replacement: '{}',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'ConditionalExpression',
        original: 'a.plain && b.plain',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const hasSurrogate = (s: string): boolean => /[\\uD800-\\uDFFF]/.test(s);',
        mutator: 'Regex',
        original: '/[\\uD800-\\uDFFF]/',
        replacement: '/[^\\uD800-\\uDFFF]/',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'ConditionalExpression',
        original: 'a.plain && b.plain',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'LogicalOperator',
        original: 'a.plain && b.plain',
        replacement: 'a.plain || b.plain',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'ConditionalExpression',
        original: 'a.id < b.id',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'EqualityOperator',
        original: 'a.id < b.id',
        replacement: 'a.id <= b.id',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'ConditionalExpression',
        original: 'a.id < b.id',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'EqualityOperator',
        original: 'a.id < b.id',
        replacement: 'a.id >= b.id',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'UnaryOperator',
        original: '-1',
        replacement: '+1',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'ConditionalExpression',
        original: 'a.id > b.id',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'EqualityOperator',
        original: 'a.id > b.id',
        replacement: 'a.id >= b.id',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'EqualityOperator',
        original: 'a.id > b.id',
        replacement: 'a.id <= b.id',
      },
      {
        file: 'impl/operator.ts',
        line: 'const hasSurrogate = (s: string): boolean => /[\\uD800-\\uDFFF]/.test(s);',
        mutator: 'ArrowFunction',
        original: '(s: string): boolean => /[\\uD800-\\uDFFF]/.test(s)',
        replacement: '() => undefined',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (a.plain && b.plain) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;',
        mutator: 'ConditionalExpression',
        original: 'a.id > b.id',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plainRow = ks.plainKey && row.plainId;',
        mutator: 'ConditionalExpression',
        original: 'ks.plainKey && row.plainId',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plainRow = ks.plainKey && row.plainId;',
        mutator: 'ConditionalExpression',
        original: 'ks.plainKey && row.plainId',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plainRow = ks.plainKey && row.plainId;',
        mutator: 'LogicalOperator',
        original: 'ks.plainKey && row.plainId',
        replacement: 'ks.plainKey || row.plainId',
      },
      {
        file: 'impl/operator.ts',
        line: 'const m = new MatchEntry(encodeMatchId(key, l.id, r.id), plainRow && partner.plainId, l, r, l.id, r.id);',
        mutator: 'ConditionalExpression',
        original: 'plainRow && partner.plainId',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const m = new MatchEntry(encodeMatchId(key, l.id, r.id), plainRow && partner.plainId, l, r, l.id, r.id);',
        mutator: 'ConditionalExpression',
        original: 'plainRow && partner.plainId',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'const m = new MatchEntry(encodeMatchId(key, l.id, r.id), plainRow && partner.plainId, l, r, l.id, r.id);',
        mutator: 'LogicalOperator',
        original: 'plainRow && partner.plainId',
        replacement: 'plainRow || partner.plainId',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (added.length > 1) added.sort(compareMatches);',
        mutator: 'ConditionalExpression',
        original: 'added.length > 1',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (added.length > 1) added.sort(compareMatches);',
        mutator: 'ConditionalExpression',
        original: 'added.length > 1',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (added.length > 1) added.sort(compareMatches);',
        mutator: 'EqualityOperator',
        original: 'added.length > 1',
        replacement: 'added.length >= 1',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (added.length > 1) added.sort(compareMatches);',
        mutator: 'EqualityOperator',
        original: 'added.length > 1',
        replacement: 'added.length <= 1',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (added.length > 1) added.sort(compareMatches);',
        mutator: 'MethodExpression',
        original: 'added.sort(compareMatches)',
        replacement: 'added',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (active.length > 1) active.sort(compareMatches);',
        mutator: 'ConditionalExpression',
        original: 'active.length > 1',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (active.length > 1) active.sort(compareMatches);',
        mutator: 'ConditionalExpression',
        original: 'active.length > 1',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (active.length > 1) active.sort(compareMatches);',
        mutator: 'EqualityOperator',
        original: 'active.length > 1',
        replacement: 'active.length >= 1',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (active.length > 1) active.sort(compareMatches);',
        mutator: 'EqualityOperator',
        original: 'active.length > 1',
        replacement: 'active.length <= 1',
      },
      {
        file: 'impl/operator.ts',
        line: 'if (active.length > 1) active.sort(compareMatches);',
        mutator: 'MethodExpression',
        original: 'active.sort(compareMatches)',
        replacement: 'active',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'ConditionalExpression',
        original: '!hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right)',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'ConditionalExpression',
        original: '!hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right)',
        replacement: 'false',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'LogicalOperator',
        original: '!hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right)',
        replacement: '!hasSurrogate(m.key) && !hasSurrogate(m.left) || !hasSurrogate(m.right)',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'ConditionalExpression',
        original: '!hasSurrogate(m.key) && !hasSurrogate(m.left)',
        replacement: 'true',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'LogicalOperator',
        original: '!hasSurrogate(m.key) && !hasSurrogate(m.left)',
        replacement: '!hasSurrogate(m.key) || !hasSurrogate(m.left)',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'BooleanLiteral',
        original: '!hasSurrogate(m.key)',
        replacement: 'hasSurrogate(m.key)',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'BooleanLiteral',
        original: '!hasSurrogate(m.left)',
        replacement: 'hasSurrogate(m.left)',
      },
      {
        file: 'impl/operator.ts',
        line: 'const plain = !hasSurrogate(m.key) && !hasSurrogate(m.left) && !hasSurrogate(m.right);',
        mutator: 'BooleanLiteral',
        original: '!hasSurrogate(m.right)',
        replacement: 'hasSurrogate(m.right)',
      },
    ],
  },
  {
    reason: REASONS.slotInit,
    mutants: [
      { file: 'impl/operator.ts', line: 'leftSlot = -1;', mutator: 'UnaryOperator', original: '-1', replacement: '+1' },
      { file: 'impl/operator.ts', line: 'rightSlot = -1;', mutator: 'UnaryOperator', original: '-1', replacement: '+1' },
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
    reason: REASONS.escapeFastPath,
    mutants: [
      {
        file: 'impl/matchId.ts',
        line: "if (part.indexOf('%') < 0 && part.indexOf('/') < 0) return part;",
        mutator: 'ConditionalExpression',
        original: "part.indexOf('%') < 0 && part.indexOf('/') < 0",
        replacement: 'false',
      },
      {
        file: 'impl/matchId.ts',
        line: "if (part.indexOf('%') < 0 && part.indexOf('/') < 0) return part;",
        mutator: 'StringLiteral',
        original: "'%'",
        replacement: '""',
      },
      {
        file: 'impl/matchId.ts',
        line: "if (part.indexOf('%') < 0 && part.indexOf('/') < 0) return part;",
        mutator: 'StringLiteral',
        original: "'/'",
        replacement: '""',
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
        line: 'evictionWork(): EvictionWork {',
        mutator: 'BlockStatement',
        original: '{\n    return { ...this.work };\n  }',
        replacement: '{}',
      },
      {
        file: 'impl/operator.ts',
        line: 'return { ...this.work };',
        mutator: 'ObjectLiteral',
        original: '{ ...this.work }',
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
    reason: REASONS.defensiveKind,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'default:',
        mutator: 'ConditionalExpression',
        original:
          'default:\n        throw new TypeError(`record kind must be insert, retract or watermark, got ${JSON.stringify((record as { kind: unknown }).kind)}`);',
        replacement: 'default:',
      },
      {
        file: 'impl/operator.ts',
        line: 'throw new TypeError(`record kind must be insert, retract or watermark, got ${JSON.stringify((record as { kind: unknown }).kind)}`);',
        mutator: 'StringLiteral',
        original: '`record kind must be insert, retract or watermark, got ${JSON.stringify((record as { kind: unknown }).kind)}`',
        replacement: '``',
      },
    ],
  },
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
        line: 'const row = new RowEntry(keyState, side, record.id, record.ts, record.start, record.end, live, this.nextOrder++);',
        mutator: 'UpdateOperator',
        original: 'this.nextOrder++',
        replacement: 'this.nextOrder--',
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
      {
        file: 'impl/operator.ts',
        line: 'const row = new RowEntry(ks, r.side, r.id, r.ts, r.start, r.end, r.live, op.nextOrder++);',
        mutator: 'UpdateOperator',
        original: 'op.nextOrder++',
        replacement: 'op.nextOrder--',
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
      { file: 'impl/cluster/effects.ts', line: "case 'process':", mutator: 'StringLiteral', original: "'process'", replacement: '""' },
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
          '{\n        // Phase fenced: the fence part ran before a crash. Raising the fence again is a\n        // no-op unless that crash fell between writing the phase and raising the fence.\n        c.sink.raiseFence(h.key, h.from + 1);\n      }',
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
      { file: 'impl/cluster/effects.ts', line: "phase: 'fenced',", mutator: 'StringLiteral', original: "'fenced'", replacement: '""' },
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
      {
        file: 'impl/operator.ts',
        line: 'if (added.length === 0) return [];',
        mutator: 'ConditionalExpression',
        original: 'added.length === 0',
        replacement: 'false',
      },
    ],
  },
  {
    reason: REASONS.preallocation,
    mutants: [
      {
        file: 'impl/operator.ts',
        line: 'const changes: Change[] = new Array<Change>(added.length);',
        mutator: 'ArrayDeclaration',
        original: 'new Array<Change>(added.length)',
        replacement: 'new Array()',
      },
      {
        file: 'impl/operator.ts',
        line: 'const changes: Change[] = new Array<Change>(active.length);',
        mutator: 'ArrayDeclaration',
        original: 'new Array<Change>(active.length)',
        replacement: 'new Array()',
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
          '{\n  const record: CoordinatorRecord = {\n    keys: c.slots.map((s) => ({ key: s.key, owner: (c.workers[s.owner] as Worker).id, epoch: s.epoch })),\n    handoff: c.handoff,\n    lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),\n  };\n  c.storage.coordinator.save(record);\n}',
        replacement: '{}',
      },
      {
        file: 'impl/cluster/clusterState.ts',
        line: 'const record: CoordinatorRecord = {',
        mutator: 'ObjectLiteral',
        original:
          '{\n    keys: c.slots.map((s) => ({ key: s.key, owner: (c.workers[s.owner] as Worker).id, epoch: s.epoch })),\n    handoff: c.handoff,\n    lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),\n  }',
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
          "{\n  if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');\n  const workers = new Set<string>();\n  config.workers.forEach((w, i) => {\n    if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);\n    if (w === COORDINATOR) throw new ConfigError(`config.workers[${i}] must not be \"${COORDINATOR}\", the coordinator's node id`);\n    if (workers.has(w)) throw new ConfigError(`config.workers[${i}] repeats worker ${JSON.stringify(w)}`);\n    workers.add(w);\n  });\n  if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');\n  const keys = new Set<string>();\n  config.keys.forEach(({ key, owner }, i) => {\n    if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);\n    if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ${JSON.stringify(key)}`);\n    if (!workers.has(owner)) throw new ConfigError(`config.keys[${i}].owner ${JSON.stringify(owner)} is not a listed worker`);\n    keys.add(key);\n  });\n  // J0, by the operator's own check.\n  new JoinOperator(config.join);\n}",
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
          "{\n    if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);\n    if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ${JSON.stringify(key)}`);\n    if (!workers.has(owner)) throw new ConfigError(`config.keys[${i}].owner ${JSON.stringify(owner)} is not a listed worker`);\n    keys.add(key);\n  }",
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
