// The shape of a counterexample as every rendering reads it (view.ts builds
// it): the steps with their diagram rows, and the divergence or the property
// broken, with the rules and properties it points at.
import type { StderrExcerpt } from '../sut/sut.ts';
import type { ClusterEvent } from '../../spec/index.ts';
import type { RuleLink } from '../report/specLinks.ts';
import type { Versions } from '../report/versions.ts';

/** What a diagram row shows: a note at one node, or a message from one node to another. */
/** `fenced`: a write the sink's fence refuses (C9), drawn refused; `fence`: the coordinator raising a fence, and a worker dropping a fenced key. */
export type RowKind = 'note' | 'message' | 'crash' | 'restart' | 'pause' | 'fence' | 'fenced' | 'refused' | 'divergence';

/** One row of the sequence diagram: at a node (`to` absent), or a message between two. Nodes are column indexes. */
export interface ViewRow {
  /** The node's column (for a message, the sender's). */
  readonly from: number;
  /** For a message, the receiver's column. */
  readonly to?: number;
  /** What the row says. */
  readonly text: string;
  /** How the row is drawn. */
  readonly kind: RowKind;
}

/** One step of a counterexample as the renderings show it. */
export interface ViewStep {
  /** The step's number as every report counts it: from 1 (its index in the trace or path, plus one). */
  readonly number: number;
  /** The action, one line for people. */
  readonly action: string;
  /** The action as JSON. */
  readonly actionJson: unknown;
  /** What happened, in order (C12 events, or the operator's outcome and changes). */
  readonly events: readonly string[];
  /** The cluster events themselves (C12), for writers that need them typed (ITF). */
  readonly clusterEvents?: readonly ClusterEvent[];
  /** Why the action was refused (not enabled, §7), if it was. */
  readonly refused?: string;
  /** The step's rows of the sequence diagram. */
  readonly rows: readonly ViewRow[];
  /** The state after the step (the model's: the expected observation). */
  readonly state: unknown;
  /** JSON pointers of the fields of `state` this step changed. */
  readonly changed: readonly string[];
}

/** Expected versus actual at one path. */
export interface ViewDiff {
  /** JSON pointer of the value that differs. */
  readonly path: string;
  /** The expected value there. */
  readonly expected: unknown;
  /** The actual value there. */
  readonly actual: unknown;
}

/** Expected versus actual at the divergence of a conformance counterexample. */
export interface ViewDivergence {
  /** Index into `steps`. */
  readonly at: number;
  /** What differs (as `Divergence.field`). */
  readonly field: string;
  /** One line for people. */
  readonly summary: string;
  /** Only the paths that differ. */
  readonly diff: readonly ViewDiff[];
  /** For an event list (C12): both lists, one line each, and the first that differs. */
  readonly events?: { readonly expected: readonly string[]; readonly actual: readonly string[]; readonly first: number };
  /** The model's value. */
  readonly expected: unknown;
  /** The system's value. */
  readonly actual: unknown;
  /** The system's state at the divergence, when the system reported it (an observation). */
  readonly actualState?: unknown;
}

/** The property a model counterexample breaks. */
export interface ViewViolation {
  /** The property's name. */
  readonly property: string;
  /** `invariant` or `progress`. */
  readonly kind: string;
  /** Why the last state breaks it, for people. */
  readonly explanation?: string;
  /** For Progress: the fault-free continuation into the trap. */
  readonly trap?: { readonly kind: string; readonly steps: readonly string[] };
}

/** One description of a counterexample that every rendering (terminal, Markdown, HTML) reads. */
export interface CounterexampleView {
  /** A conformance counterexample (a divergence) or a model one (a property broken). */
  readonly kind: 'conformance' | 'model';
  /** The counterexample's name. */
  readonly name: string;
  /** What the trace exercises, when it says. */
  readonly description?: string;
  /** The streamjoin and spec versions. */
  readonly versions: Versions;
  /** The configuration, one labelled line each (J0 bounds first), and as JSON. */
  readonly config: readonly (readonly [string, string])[];
  /** The configuration as JSON. */
  readonly configJson: unknown;
  /** Where it came from: system under test, level, found by, seed, path, the replay command… */
  readonly found: readonly (readonly [string, string])[];
  /** The nodes, one column each of the sequence diagram. */
  readonly nodes: readonly string[];
  /** The state before the first step. */
  readonly initialState: unknown;
  /** The steps, in order. */
  readonly steps: readonly ViewStep[];
  /** For a conformance counterexample: the divergence. */
  readonly divergence?: ViewDivergence;
  /** For a model counterexample: the property broken. */
  readonly violation?: ViewViolation;
  /** The rules it points at, with links. */
  readonly rules: readonly RuleLink[];
  /** The properties it points at, with links. */
  readonly properties: readonly RuleLink[];
  /** What the system under test wrote to stderr while this very trace ran (a conformance run of a process), bounded. */
  readonly stderr?: StderrExcerpt;
}
