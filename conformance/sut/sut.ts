// What the harness needs from a system under test, at each capability level
// (spec/PROTOCOL.md, "Levels"). Two layers:
//
// - in-process, synchronous: `OperatorUnderTest` and `ClusterUnderTest`
//   below, bundled with a name and levels as an
//   `InProcessSut`. The reference model is one; so are the
//   implementation and every mutant. `streamjoin serve` wraps one in
//   the protocol server.
// - asynchronous `SystemUnderTest`: what the lockstep runner drives. Built
//   from an `InProcessSut` (adapters/inProcess.ts) or from a process speaking
//   the protocol (adapters/process.ts), which pipelines a whole trace.
import type {
  Change,
  ClusterConfig,
  ClusterEvent,
  ClusterObservation,
  ExternalAction,
  ImplementationInfo,
  JoinConfig,
  Level,
  LogRecord,
  Outcome,
  RetainedCounts,
} from '../../spec/index.ts';

/** What the harness needs from a single-partition operator. */
export interface OperatorUnderTest {
  /** Applies one record: its outcome and changes (J7). */
  apply(record: LogRecord): { outcome: Outcome; changes: readonly Change[] };
  /** Retained live rows, tombstones and matches over all keys (J8). */
  retained(): RetainedCounts;
}

/** Builds an operator for a join config (J0). */
export type OperatorFactory = (config: JoinConfig) => OperatorUnderTest;

/** A refusal, as the protocol's error reply carries it (code from PROTOCOL_ERRORS). */
export interface SutError {
  /** Protocol error code (PROTOCOL_ERRORS). */
  readonly code: number;
  /** What was wrong, for people. */
  readonly text: string;
}

/** What a cluster action caused (C12, in order, eager processing included), or why it was not carried out. */
export type ActionReply = { readonly events: readonly ClusterEvent[] } | { readonly error: SutError };

/** What one record did at level `operator` (J7, §3), or why it was not carried out. */
export type RecordReply =
  | { readonly outcome: Outcome; readonly changes: readonly Change[]; readonly retained: RetainedCounts }
  | { readonly error: SutError };

/**
 * One step of a cluster trace as the system under test answered it: the
 * action's reply, then the observation (absent where the step was not
 * observed: a probe followed by another probe of the same state).
 */
export interface ClusterStepReply {
  /** The action's reply. */
  readonly reply: ActionReply;
  /** The observation after the action (SPEC §7), when it was asked for. */
  readonly observation?: ClusterObservation;
}

/**
 * A cluster at level `cluster` or `faults`, in-process. `apply` runs one
 * external action and then every processing step eagerly (SPEC §7); an
 * action that is not enabled returns the `not_enabled` error and changes
 * nothing.
 */
export interface ClusterUnderTest {
  /** Runs one external action, then every processing step eagerly (SPEC §7). */
  apply(action: ExternalAction): ActionReply;
  /** The observation of the current state (SPEC §7). */
  observe(): ClusterObservation;
  /** Ends the cluster, releasing what it holds. */
  close(): void;
}

/** Thrown by an in-process factory for a config it refuses (the protocol's `bad_config`). */
export class SutConfigError extends Error {
  /** Builds the error with `message`. */
  constructor(message: string) {
    super(message);
    this.name = 'SutConfigError';
  }
}

/** How a cluster session starts (the protocol's `init`). */
export interface ClusterOpenOptions {
  /**
   * Kill mode's re-attach (PROTOCOL.md, "Kill mode"): resume the session the
   * system's data directory holds, as after a crash of every node. A system
   * that keeps nothing on disk starts fresh, and kill mode finds it out.
   */
  readonly recover?: boolean;
}

/** An in-process system under test: its name and the factories of the levels it supports. */
export interface InProcessSut {
  /** Its name and version, as the handshake reports them. */
  readonly implementation: ImplementationInfo;
  /** The capability levels it supports. */
  readonly levels: readonly Level[];
  /** Level `operator`. */
  readonly operator?: OperatorFactory;
  /** Levels `cluster` and `faults`; the level is what the harness will send (PROTOCOL.md). */
  readonly cluster?: (config: ClusterConfig, level: Level, options?: ClusterOpenOptions) => ClusterUnderTest;
}

/** The implementation's name and levels, from the handshake. */
export interface SutInfo {
  /** Its name and version. */
  readonly implementation: ImplementationInfo;
  /** The capability levels it supports. */
  readonly levels: readonly Level[];
  /**
   * The handshake's first config, which the system refused at a level
   * though it took an ordinary one there (the levels come from that): a
   * valid config refused, which the conformance job judges as a trace of
   * its own (J0, C1).
   */
  readonly refusedConfig?: RefusedConfig;
}

/** A valid config a system refused at `init`, or died on (SutInfo.refusedConfig): its level, the config, and the error reply or the death. */
export interface RefusedConfig {
  /** The level of the refused init. */
  readonly level: Level;
  /** The config it was refused with (valid: J0, C1). */
  readonly config: JoinConfig | ClusterConfig;
  /** The error reply's code; absent when the process died on it (before answering). */
  readonly code?: number;
  /** The error reply's text, or how the process died. */
  readonly text: string;
}

/** The last lines a system wrote to stderr while something ran, each printable and bounded. */
export interface StderrExcerpt {
  /** The lines kept, oldest first. */
  readonly lines: readonly string[];
  /** Lines written before those (not kept). */
  readonly earlier: number;
}

/** A session at level `operator`. */
export interface OperatorSession {
  /** Applies the records in order; one reply each. Pipelined over a process. */
  records(records: readonly LogRecord[]): Promise<RecordReply[]>;
  /**
   * What the system wrote to stderr from this session's first request until
   * the next session's (a process; in-process systems have none). Read it
   * late: a process's stderr may trail its replies.
   */
  stderr?(): StderrExcerpt;
}

/** A session at level `cluster` or `faults`. */
export interface ClusterSession {
  /** Runs one external action (with eager processing); its reply. */
  apply(action: ExternalAction): Promise<ActionReply>;
  /** The observation of the current state (SPEC §7). */
  observe(): Promise<ClusterObservation>;
  /**
   * Each action followed by an observation, in order; where `observed`
   * says false for a step's index, that step's observation is not asked for.
   * Pipelined over a process.
   */
  steps(actions: readonly ExternalAction[], observed?: (index: number) => boolean): Promise<ClusterStepReply[]>;
  /** As OperatorSession's. */
  stderr?(): StderrExcerpt;
}

/**
 * A system under test the harness drives. Opening a session discards the
 * previous one (the protocol's `init`). Every method rejects with
 * `SutUnavailable` when the system cannot be judged: dead, hung, babbling.
 */
export interface SystemUnderTest {
  /** How to name it in messages and in replay commands (`model`, or the command). */
  readonly label: string;
  /** Its name and levels, from the handshake. */
  info(): Promise<SutInfo>;
  /** Starts a session at level `operator` with this join config. */
  openOperator(config: JoinConfig): Promise<OperatorSession>;
  /** Starts a session at level `cluster` or `faults` with this cluster config. */
  openCluster(config: ClusterConfig, level: Level, options?: ClusterOpenOptions): Promise<ClusterSession>;
  /** Ends the system; for a process, kills it and its process group. Never rejects. */
  close(): Promise<void>;
  /** The last lines the system wrote to stderr (a process; in-process systems have none). */
  stderrTail?(): string[];
  /**
   * After the system died (its process exited, or closed its stdout: a
   * reason `dead: ...`), readies the same command to start afresh at the
   * next session, and says true; false if it did not die (hung, babbling,
   * interrupted, closed) or cannot start again. Lockstep runs a trace up to
   * the step its system died at once more, to tell a death that step causes
   * (a failure) from one that came from elsewhere (unknown; lockstep/deaths.ts).
   */
  revive?(): Promise<boolean>;
}

/**
 * The system under test cannot be judged (verdict `unknown`): it died, hung,
 * babbled, broke the protocol, or refused to start a session it claims to
 * support. Carries its last stderr lines.
 */
export class SutUnavailable extends Error {
  /** Why the system cannot be judged. */
  readonly reason: string;
  /** Its last stderr lines. */
  readonly stderrTail: readonly string[];
  /**
   * What the session had answered before the system became unavailable, in
   * request order (the last cluster step may lack its observation: the
   * inspect after it was refused or never answered). Lockstep judges these
   * first: a wrong reply is a divergence whatever follows it (PROTOCOL.md,
   * an error reply to a valid request is a difference).
   */
  readonly answered?: AnsweredBefore;
  /**
   * The session's `init` was refused (its config is valid: J0, C1), with
   * `answered` empty: lockstep judges it the trace's divergence, before its
   * first step, not an implementation it cannot judge.
   */
  readonly initRefused?: { readonly code: number; readonly text: string };
  /** Builds the error; the message is `reason`. */
  constructor(
    reason: string,
    stderrTail: readonly string[] = [],
    answered?: AnsweredBefore,
    initRefused?: { readonly code: number; readonly text: string },
  ) {
    super(reason);
    this.name = 'SutUnavailable';
    this.reason = reason;
    this.stderrTail = stderrTail;
    if (answered) this.answered = answered;
    if (initRefused) this.initRefused = initRefused;
  }
}

/** A system that died: its process exited, or closed its stdout (the process adapter words both `dead: ...`). */
export const isDeath = (e: SutUnavailable): boolean => e.reason.startsWith('dead: ');

/** The replies a session got before its system became unavailable (SutUnavailable.answered). */
export type AnsweredBefore =
  | { readonly level: 'cluster'; readonly steps: readonly ClusterStepReply[] }
  | { readonly level: 'operator'; readonly records: readonly RecordReply[] };
