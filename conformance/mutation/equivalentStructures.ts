// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the entries quote source text, template literals included
// Equivalent mutants of the operator's data structures and snapshots (impl/horizonHeap.ts, impl/intervalTree.ts,
// impl/snapshot.ts), each under its
// argument (equivalentReasons.ts). equivalent.ts gathers every area's list.
import { type EquivalentMutant, type EquivalentSite, REASONS } from './equivalentReasons.ts';

const heap = (line: string, mutator: string, original: string, replacement: string): EquivalentSite => ({
  file: 'impl/horizonHeap.ts',
  line,
  mutator,
  original,
  replacement,
});

const tree = (line: string, mutator: string, original: string, replacement: string): EquivalentSite => ({
  file: 'impl/intervalTree.ts',
  line,
  mutator,
  original,
  replacement,
});

const LEFT_RIGHT = 'if (heightOf(l.left) < heightOf(l.right)) n.left = this.rotateLeft(l);';
const RIGHT_LEFT = 'if (heightOf(r.right) < heightOf(r.left)) n.right = this.rotateRight(r);';
const LEFT_HEAVY = `{
      const l = n.left as N;
      ${LEFT_RIGHT}
      return this.rotateRight(n);
    }`;
const RIGHT_HEAVY = `{
      const r = n.right as N;
      ${RIGHT_LEFT}
      return this.rotateLeft(n);
    }`;

const snapshot = (line: string, mutator: string, original: string, replacement: string): EquivalentSite => ({
  file: 'impl/snapshot.ts',
  line,
  mutator,
  original,
  replacement,
});

const SIFT_UP = 'if (pe < end || (pe === end && (orders[parent] as number) < order)) break;';
const CHILD = 'if (re < le || (re === le && (orders[r] as number) < (orders[l] as number))) child = r;';
const SIFT_DOWN = 'if (ce > end || (ce === end && (orders[child] as number) > order)) break;';

export const STRUCTURE_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.heapTies,
    mutants: [
      heap(SIFT_UP, 'ConditionalExpression', 'pe === end && (orders[parent] as number) < order', 'false'),
      heap(SIFT_UP, 'ConditionalExpression', '(orders[parent] as number) < order', 'true'),
      heap(SIFT_UP, 'EqualityOperator', 'pe < end', 'pe <= end'),
      heap(SIFT_UP, 'EqualityOperator', '(orders[parent] as number) < order', '(orders[parent] as number) <= order'),
      heap(SIFT_UP, 'EqualityOperator', '(orders[parent] as number) < order', 'orders[parent] as number >= order'),
      heap(CHILD, 'EqualityOperator', 're < le', 're <= le'),
      heap(CHILD, 'ConditionalExpression', 're === le && (orders[r] as number) < (orders[l] as number)', 'false'),
      heap(CHILD, 'ConditionalExpression', '(orders[r] as number) < (orders[l] as number)', 'true'),
      heap(CHILD, 'EqualityOperator', '(orders[r] as number) < (orders[l] as number)', '(orders[r] as number) <= (orders[l] as number)'),
      heap(CHILD, 'EqualityOperator', '(orders[r] as number) < (orders[l] as number)', 'orders[r] as number >= (orders[l] as number)'),
      heap(SIFT_DOWN, 'EqualityOperator', 'ce > end', 'ce >= end'),
      heap(SIFT_DOWN, 'ConditionalExpression', 'ce === end && (orders[child] as number) > order', 'false'),
      heap(SIFT_DOWN, 'ConditionalExpression', '(orders[child] as number) > order', 'true'),
      heap(SIFT_DOWN, 'EqualityOperator', '(orders[child] as number) > order', 'orders[child] as number >= order'),
      heap(SIFT_DOWN, 'EqualityOperator', '(orders[child] as number) > order', '(orders[child] as number) <= order'),
    ],
  },
  {
    reason: REASONS.heapSlots,
    mutants: [
      heap('private items: (E | undefined)[] = [];', 'ArrayDeclaration', '[]', '["Stryker was here"]'),
      heap('return this.count === 0 ? undefined : this.items[0];', 'ConditionalExpression', 'this.count === 0', 'false'),
      heap('if (this.count === 0) return undefined;', 'ConditionalExpression', 'this.count === 0', 'false'),
      heap('if (last > 0) this.siftDown(0, entry, end, order);', 'ConditionalExpression', 'last > 0', 'true'),
      heap('if (last > 0) this.siftDown(0, entry, end, order);', 'EqualityOperator', 'last > 0', 'last >= 0'),
      heap('for (let i = (this.count >> 1) - 1; i >= 0; i--) {', 'ArithmeticOperator', '(this.count >> 1) - 1', '(this.count >> 1) + 1'),
    ],
  },
  {
    reason: REASONS.treeBalance,
    mutants: [
      tree(
        'const heightOf = (n: IntervalNode | null): number => (n === null ? 0 : n.height);',
        'ConditionalExpression',
        'n === null',
        'true',
      ),
      tree('const hl = l === null ? 0 : l.height;', 'ConditionalExpression', 'l === null', 'true'),
      tree('const hr = r === null ? 0 : r.height;', 'ConditionalExpression', 'r === null', 'true'),
      tree('n.height = Math.max(hl, hr) + 1;', 'ArithmeticOperator', 'Math.max(hl, hr) + 1', 'Math.max(hl, hr) - 1'),
      tree('n.height = Math.max(hl, hr) + 1;', 'MethodExpression', 'Math.max(hl, hr)', 'Math.min(hl, hr)'),
      tree('if (balance > 1) {', 'ConditionalExpression', 'balance > 1', 'false'),
      tree('if (balance > 1) {', 'EqualityOperator', 'balance > 1', 'balance >= 1'),
      tree('if (balance > 1) {', 'BlockStatement', LEFT_HEAVY, '{}'),
      tree(LEFT_RIGHT, 'ConditionalExpression', 'heightOf(l.left) < heightOf(l.right)', 'false'),
      tree(LEFT_RIGHT, 'EqualityOperator', 'heightOf(l.left) < heightOf(l.right)', 'heightOf(l.left) <= heightOf(l.right)'),
      tree('if (balance < -1) {', 'ConditionalExpression', 'balance < -1', 'false'),
      tree('if (balance < -1) {', 'EqualityOperator', 'balance < -1', 'balance <= -1'),
      tree('if (balance < -1) {', 'BlockStatement', RIGHT_HEAVY, '{}'),
      tree(RIGHT_LEFT, 'ConditionalExpression', 'heightOf(r.right) < heightOf(r.left)', 'false'),
      tree(RIGHT_LEFT, 'EqualityOperator', 'heightOf(r.right) < heightOf(r.left)', 'heightOf(r.right) <= heightOf(r.left)'),
    ],
  },
  {
    reason: REASONS.treeBookkeeping,
    mutants: [
      tree('this.count++;', 'UpdateOperator', 'this.count++', 'this.count--'),
      tree('this.count--;', 'UpdateOperator', 'this.count--', 'this.count++'),
      tree('return true;', 'BooleanLiteral', 'true', 'false'),
    ],
  },
  {
    reason: REASONS.uniqueEntries,
    mutants: [
      tree('if (c < 0) n.left = this.insertAt(n.left, item);', 'EqualityOperator', 'c < 0', 'c <= 0'),
      tree('if (n !== item) return n;', 'ConditionalExpression', 'n !== item', 'false'),
    ],
  },
  {
    reason: REASONS.treeShape,
    // In removeAt (after the count), not in removeMin, whose line is the same and whose mutant is killed.
    mutants: [
      { ...tree('if (n.left === null) return n.right;', 'ConditionalExpression', 'n.left === null', 'false'), before: 'this.count--;' },
    ],
  },
  {
    reason: REASONS.searchPruning,
    mutants: [tree('if (n.maxEnd < from) return;', 'ConditionalExpression', 'n.maxEnd < from', 'false')],
  },
  {
    reason: REASONS.removesHeld,
    mutants: [tree('if (n === null) return null;', 'ConditionalExpression', 'n === null', 'false')],
  },
  {
    reason: REASONS.maxEndTies,
    mutants: [
      tree('if (l !== null && l.maxEnd > m) m = l.maxEnd;', 'EqualityOperator', 'l.maxEnd > m', 'l.maxEnd >= m'),
      tree('if (r !== null && r.maxEnd > m) m = r.maxEnd;', 'EqualityOperator', 'r.maxEnd > m', 'r.maxEnd >= m'),
    ],
  },
  {
    reason: REASONS.snapshotPointers,
    mutants: [
      snapshot(
        "const s = objectWith(value, '', ['format', 'config', 'watermarks', 'rows', 'matches', 'counters']);",
        'StringLiteral',
        "''",
        '"Stryker was here!"',
      ),
      snapshot("const wmJson = objectWith(s['watermarks'], '/watermarks', ['L', 'R']);", 'StringLiteral', "'/watermarks'", '""'),
      snapshot("L: wmJson['L'] === null ? null : time(wmJson['L'], '/watermarks/L'),", 'StringLiteral', "'/watermarks/L'", '""'),
      snapshot("R: wmJson['R'] === null ? null : time(wmJson['R'], '/watermarks/R'),", 'StringLiteral', "'/watermarks/R'", '""'),
      snapshot('const at = `/rows/${i}`;', 'StringLiteral', '`/rows/${i}`', '``'),
      snapshot("key: nonEmptyString(r['key'], `${at}/key`),", 'StringLiteral', '`${at}/key`', '``'),
      snapshot("side: side(r['side'], `${at}/side`),", 'StringLiteral', '`${at}/side`', '``'),
      snapshot("id: nonEmptyString(r['id'], `${at}/id`),", 'StringLiteral', '`${at}/id`', '``'),
      snapshot("ts: time(r['ts'], `${at}/ts`),", 'StringLiteral', '`${at}/ts`', '``'),
      snapshot("start: time(r['start'], `${at}/start`),", 'StringLiteral', '`${at}/start`', '``'),
      snapshot("end: time(r['end'], `${at}/end`),", 'StringLiteral', '`${at}/end`', '``'),
      snapshot('const at = `/matches/${i}`;', 'StringLiteral', '`/matches/${i}`', '``'),
      snapshot("key: nonEmptyString(m['key'], `${at}/key`),", 'StringLiteral', '`${at}/key`', '``'),
      snapshot("left: nonEmptyString(m['left'], `${at}/left`),", 'StringLiteral', '`${at}/left`', '``'),
      snapshot("right: nonEmptyString(m['right'], `${at}/right`),", 'StringLiteral', '`${at}/right`', '``'),
    ],
  },
  {
    reason: REASONS.snapshotEcho,
    mutants: [
      snapshot(
        'config: { allowedLateness: config.allowedLateness, maxIntervalLength: config.maxIntervalLength },',
        'ObjectLiteral',
        '{ allowedLateness: config.allowedLateness, maxIntervalLength: config.maxIntervalLength }',
        '{}',
      ),
      snapshot(
        "export const SNAPSHOT_FORMAT = 'streamjoin/operator-snapshot@1';",
        'StringLiteral',
        "'streamjoin/operator-snapshot@1'",
        '""',
      ),
    ],
  },
  {
    reason: REASONS.treeBalance,
    mutants: [
      tree(
        'const heightOf = (n: IntervalNode | null): number => (n === null ? 0 : n.height);',
        'ArrowFunction',
        '(n: IntervalNode | null): number => (n === null ? 0 : n.height)',
        '() => undefined',
      ),
    ],
  },
];
