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
const REFUSAL = "if (why !== undefined) return { error: { kind: 'not-enabled', text: `${describeClusterAction(checked)}: ${why}` } };";

export const ACTION_EQUIVALENTS: readonly EquivalentMutant[] = [
  {
    reason: REASONS.noAlias,
    mutants: [
      site('impl/cluster/cluster.ts', RECORD_COPY, 'ConditionalExpression', "action.type === 'record'", 'false'),
      site('impl/cluster/cluster.ts', RECORD_COPY, 'StringLiteral', "'record'", '""'),
    ],
  },
  {
    reason: REASONS.refusalText,
    mutants: [
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
    reason: REASONS.freezeGuardText,
    mutants: [
      site(
        'impl/cluster/guards.ts',
        'return `the owner ${src.id} holds no active copy of ${a.key} at epoch ${slot.epoch}`;',
        'StringLiteral',
        '`the owner ${src.id} holds no active copy of ${a.key} at epoch ${slot.epoch}`',
        '``',
      ),
    ],
  },
  {
    reason: REASONS.duplicateReleaseNoop,
    mutants: [site('impl/cluster/effects.ts', "case 'duplicateRelease':", 'StringLiteral', "'duplicateRelease'", '""')],
  },
];
