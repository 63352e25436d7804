// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the entries quote source text, template literals included
// Equivalent mutants of how the cluster takes an action (impl/cluster/: cluster.ts, guards.ts, eager.ts),
// each under its argument (equivalentReasons.ts). equivalent.ts gathers every area's list.
import { type EquivalentMutant, type EquivalentSite, REASONS } from './equivalentReasons.ts';

const site = (file: string, line: string, mutator: string, original: string, replacement: string): EquivalentSite => ({
  file,
  line,
  mutator,
  original,
  replacement,
});

const RECORD_COPY =
  "const checked: ClusterAction = action.type === 'record' ? { type: 'record', record: copyOfRecord(action.record) } : action;";
const FREEZE_COPY = 'if (copy === undefined || copy.frozen || copy.epoch !== slot.epoch)';
const REFUSAL = "if (why !== undefined) return { error: { kind: 'not-enabled', text: `${describeClusterAction(checked)}: ${why}` } };";

export const ACTION_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.noAlias,
    mutants: [
      site('impl/cluster/cluster.ts', RECORD_COPY, 'ConditionalExpression', "action.type === 'record'", 'false'),
      // The `'record'` compared with, not the one the copy is given (that one is killed).
      { ...site('impl/cluster/cluster.ts', RECORD_COPY, 'StringLiteral', "'record'", '""'), column: 52 },
    ],
  },
  {
    reason: REASONS.refusalText,
    mutants: [
      site(
        'impl/cluster/guards.ts',
        'return `the destination ${dst.id} holds no installed copy of ${a.key} at epoch ${h.from + 1}`;',
        'ArithmeticOperator',
        'h.from + 1',
        'h.from - 1',
      ),
      // Every refusal text of the guards (a text is only ever returned, or tested for being a string; the coordinator's
      // "is down", which a guard tests for truth, is not among them).
      site(
        'impl/cluster/guards.ts',
        "if (!c.coordinatorUp) return 'the coordinator is down';",
        'StringLiteral',
        "'the coordinator is down'",
        '""',
      ),
      site('impl/cluster/guards.ts', 'if (slot === undefined) return `unknown key ${key}`;', 'StringLiteral', '`unknown key ${key}`', '``'),
      site(
        'impl/cluster/guards.ts',
        'if (worker === undefined) return `unknown worker ${to}`;',
        'StringLiteral',
        '`unknown worker ${to}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (c.handoff !== null) return `a handoff of ${c.handoff.key} is in flight`;',
        'StringLiteral',
        '`a handoff of ${c.handoff.key} is in flight`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (to === src) return `${a.to} already owns ${a.key}`;',
        'StringLiteral',
        '`${a.to} already owns ${a.key}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (src.status !== 'up') return `the owner ${src.id} is not up`;",
        'StringLiteral',
        '`the owner ${src.id} is not up`',
        '``',
      ),
      site('impl/cluster/guards.ts', "if (to.status !== 'up') return `${to.id} is not up`;", 'StringLiteral', '`${to.id} is not up`', '``'),
      site(
        'impl/cluster/guards.ts',
        "if (h === undefined || h.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${a.key} awaits persist`;",
        'StringLiteral',
        '`no migration of ${a.key} awaits persist`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (src.status !== 'up') return `the source ${src.id} is not up`;",
        'StringLiteral',
        '`the source ${src.id} is not up`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (copy === undefined || !copy.frozen) return `the source ${src.id} holds no frozen copy of ${a.key}`;',
        'StringLiteral',
        '`the source ${src.id} holds no frozen copy of ${a.key}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'return `no migration of ${a.key} awaits install (it needs a persisted checkpoint)`;',
        'StringLiteral',
        '`no migration of ${a.key} awaits install (it needs a persisted checkpoint)`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (workerNamed(c, h.dst).status !== 'up') return `the destination ${h.dst} is not up`;",
        'StringLiteral',
        '`the destination ${h.dst} is not up`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (m === undefined) return `no install of ${a.key} was ever sent`;',
        'StringLiteral',
        '`no install of ${a.key} was ever sent`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (workerNamed(c, m.dst).status !== 'up') return `its destination ${m.dst} is not up`;",
        'StringLiteral',
        '`its destination ${m.dst} is not up`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (m === undefined) return `no release of ${a.key} was ever sent`;',
        'StringLiteral',
        '`no release of ${a.key} was ever sent`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (workerNamed(c, m.src).status !== 'up') return `its source ${m.src} is not up`;",
        'StringLiteral',
        '`its source ${m.src} is not up`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (h === undefined || (h.phase !== 'installed' && h.phase !== 'fenced')) return `no handoff of ${a.key} awaits commit`;",
        'StringLiteral',
        '`no handoff of ${a.key} awaits commit`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (a.crashAfterFence && h.phase !== 'installed') return 'the fence is already raised, so there is no crash point between the parts';",
        'StringLiteral',
        "'the fence is already raised, so there is no crash point between the parts'",
        '""',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (dst.status !== 'up') return `the destination ${dst.id} is not up`;",
        'StringLiteral',
        '`the destination ${dst.id} is not up`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'return `the destination ${dst.id} holds no installed copy of ${a.key} at epoch ${h.from + 1}`;',
        'StringLiteral',
        '`the destination ${dst.id} holds no installed copy of ${a.key} at epoch ${h.from + 1}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "} else if (dst.status === 'paused') return `the destination ${dst.id} is paused`;",
        'StringLiteral',
        '`the destination ${dst.id} is paused`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (h === undefined || h.phase !== 'committed') return `no handoff of ${a.key} awaits release`;",
        'StringLiteral',
        '`no handoff of ${a.key} awaits release`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (workerNamed(c, h.src).status === 'paused') return `the source ${h.src} is paused`;",
        'StringLiteral',
        '`the source ${h.src} is paused`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (h === undefined || h.kind !== 'migrate') return `no migration of ${a.key} is in flight`;",
        'StringLiteral',
        '`no migration of ${a.key} is in flight`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (h.phase === 'fenced' || h.phase === 'committed') return 'past the fence a handoff only goes forward (C5)';",
        'StringLiteral',
        "'past the fence a handoff only goes forward (C5)'",
        '""',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (workerNamed(c, h.src).status === 'paused') return `the source ${h.src} is paused`;",
        'StringLiteral',
        '`the source ${h.src} is paused`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (owner.status === 'up') return `the owner ${owner.id} is up`;",
        'StringLiteral',
        '`the owner ${owner.id} is up`',
        '``',
      ),
      site('impl/cluster/guards.ts', "if (to.status !== 'up') return `${to.id} is not up`;", 'StringLiteral', '`${to.id} is not up`', '``'),
      site(
        'impl/cluster/guards.ts',
        'if (w === undefined) return `unknown worker ${a.worker}`;',
        'StringLiteral',
        '`unknown worker ${a.worker}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (slot === undefined) return `unknown key ${a.key}`;',
        'StringLiteral',
        '`unknown key ${a.key}`',
        '``',
      ),
      site('impl/cluster/guards.ts', "if (w.status !== 'up') return `${w.id} is not up`;", 'StringLiteral', '`${w.id} is not up`', '``'),
      site(
        'impl/cluster/guards.ts',
        'if (copy === undefined || copy.frozen) return `${w.id} holds no active copy of ${a.key}`;',
        'StringLiteral',
        '`${w.id} holds no active copy of ${a.key}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (a.node === COORDINATOR) return c.coordinatorUp ? undefined : 'the coordinator is already down';",
        'StringLiteral',
        "'the coordinator is already down'",
        '""',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (w === undefined) return `unknown node ${a.node}`;',
        'StringLiteral',
        '`unknown node ${a.node}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "return w.status === 'down' ? `${w.id} is already down` : undefined;",
        'StringLiteral',
        '`${w.id} is already down`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (a.node === COORDINATOR) return c.coordinatorUp ? 'the coordinator is up' : undefined;",
        'StringLiteral',
        "'the coordinator is up'",
        '""',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (w === undefined) return `unknown node ${a.node}`;',
        'StringLiteral',
        '`unknown node ${a.node}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "return w.status === 'down' ? undefined : `${w.id} is not down`;",
        'StringLiteral',
        '`${w.id} is not down`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (w === undefined) return `unknown worker ${a.worker}`;',
        'StringLiteral',
        '`unknown worker ${a.worker}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "return w.status === 'up' ? undefined : `${w.id} is not up`;",
        'StringLiteral',
        '`${w.id} is not up`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        'if (w === undefined) return `unknown worker ${a.worker}`;',
        'StringLiteral',
        '`unknown worker ${a.worker}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        "return w.status === 'paused' ? undefined : `${w.id} is not paused`;",
        'StringLiteral',
        '`${w.id} is not paused`',
        '``',
      ),
      site(
        'impl/cluster/cluster.ts',
        REFUSAL,
        'ObjectLiteral',
        "{ kind: 'not-enabled', text: `${describeClusterAction(checked)}: ${why}` }",
        '{}',
      ),
      site('impl/cluster/cluster.ts', REFUSAL, 'StringLiteral', "'not-enabled'", '""'),
      site('impl/cluster/cluster.ts', REFUSAL, 'StringLiteral', '`${describeClusterAction(checked)}: ${why}`', '``'),
    ],
  },
  {
    reason: REASONS.wokenCopy,
    mutants: [
      site(
        'impl/cluster/eager.ts',
        'if (copy !== undefined && canProcess(w, copy)) processBacklog(c, w, slot, copy, events);',
        'ConditionalExpression',
        'copy !== undefined',
        'true',
      ),
    ],
  },
  {
    reason: REASONS.freezeGuard,
    mutants: [
      site(
        'impl/cluster/guards.ts',
        'return `the owner ${src.id} holds no active copy of ${a.key} at epoch ${slot.epoch}`;',
        'StringLiteral',
        '`the owner ${src.id} holds no active copy of ${a.key} at epoch ${slot.epoch}`',
        '``',
      ),
      site(
        'impl/cluster/guards.ts',
        FREEZE_COPY,
        'ConditionalExpression',
        'copy === undefined || copy.frozen || copy.epoch !== slot.epoch',
        'false',
      ),
      site(
        'impl/cluster/guards.ts',
        FREEZE_COPY,
        'LogicalOperator',
        'copy === undefined || copy.frozen || copy.epoch !== slot.epoch',
        '(copy === undefined || copy.frozen) && copy.epoch !== slot.epoch',
      ),
      site('impl/cluster/guards.ts', FREEZE_COPY, 'ConditionalExpression', 'copy === undefined || copy.frozen', 'false'),
      site(
        'impl/cluster/guards.ts',
        FREEZE_COPY,
        'LogicalOperator',
        'copy === undefined || copy.frozen',
        'copy === undefined && copy.frozen',
      ),
      site('impl/cluster/guards.ts', FREEZE_COPY, 'ConditionalExpression', 'copy === undefined', 'false'),
      site('impl/cluster/guards.ts', FREEZE_COPY, 'ConditionalExpression', 'copy.epoch !== slot.epoch', 'false'),
    ],
  },
  {
    reason: REASONS.failoverKind,
    mutants: [
      site(
        'impl/cluster/guards.ts',
        "if (h === undefined || h.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${a.key} awaits persist`;",
        'ConditionalExpression',
        "h.kind !== 'migrate'",
        'false',
      ),
      site(
        'impl/cluster/guards.ts',
        "if (h === undefined || h.kind !== 'migrate') return `no migration of ${a.key} is in flight`;",
        'ConditionalExpression',
        "h.kind !== 'migrate'",
        'false',
      ),
    ],
  },
  {
    reason: REASONS.sourceCopyExists,
    mutants: [
      site(
        'impl/cluster/guards.ts',
        'if (copy === undefined || !copy.frozen) return `the source ${src.id} holds no frozen copy of ${a.key}`;',
        'ConditionalExpression',
        'copy === undefined',
        'false',
      ),
    ],
  },
  {
    reason: REASONS.commitGuard,
    mutants: [
      site(
        'impl/cluster/guards.ts',
        'if (copy === undefined || copy.epoch !== h.from + 1)',
        'ConditionalExpression',
        'copy.epoch !== h.from + 1',
        'false',
      ),
    ],
  },
  {
    reason: REASONS.duplicateReleaseNoop,
    mutants: [site('impl/cluster/effects.ts', "case 'duplicateRelease':", 'StringLiteral', "'duplicateRelease'", '""')],
  },
  {
    reason: REASONS.noRecorder,
    mutants: [
      site(
        'impl/cluster/sink.ts',
        'if (this.onApplied === undefined) return this.applyEntry(entry);',
        'ConditionalExpression',
        'this.onApplied === undefined',
        'true',
      ),
    ],
  },
  {
    reason: REASONS.order,
    mutants: [
      site(
        'impl/cluster/sink.ts',
        'while (i < a.length && j < b.length)',
        'ConditionalExpression',
        'i < a.length && j < b.length',
        'false',
      ),
    ],
  },
  {
    reason: REASONS.descriptor,
    mutants: [
      site(
        'impl/cluster/sink.ts',
        "if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });",
        'ConditionalExpression',
        "name === '__proto__'",
        'true',
      ),
    ],
  },
];
