// The arguments that mutants of impl/ are equivalent, by name, and the shape of an entry;
// the entries themselves sit in one file per area of impl/ (equivalent.ts gathers them).

/** One mutant: its file and source line (the code on it), which mutator, the code it replaces and its replacement (as Stryker reports them). */
export interface EquivalentSite {
  readonly file: string;
  readonly line: string;
  /** The line before it, when the same line occurs more than once in the file. */
  readonly before?: string;
  /** The 1-based column the mutant starts at, when its line holds two mutants of the same code and replacement. */
  readonly column?: number;
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
    'Order of the ids the sink lists. observe() lists match ids in §0 order, but the ' +
    "observation's `sink.matches` is a JSON object: §7 compares observations as " +
    'objects, member order aside, so a mutant that lists the ids in another order, ' +
    'twice, or merges them late, shows the same observation. The ordering exists for ' +
    'people reading a trace (a stable layout), and for `relation()`, which the ' +
    'protocol does not expose.',
  phantom:
    'A listed id with no state. An id in the listing that the sink never wrote maps ' +
    'to no state, and a member whose value is undefined is no member of a JSON ' +
    'object: the observation is the same (in process and over the protocol alike).',
  kind:
    'The kind of a write entry is read back only by applyEntry, which tests for ' +
    "'fence'; with the in-memory journal the entry is never read again (the on-disk " +
    "journal, which recovery reads, is outside this measurement). Any other string behaves as 'write'.",
  raise:
    'Performance only: raiseFence skips a raise that would not move the fence. ' +
    'Journaling the no-op raise anyway (or also an equal one) leaves the fence at ' +
    'max(fence, epoch), unchanged: nothing observable.',
  fenceReturn:
    "The result of applying a fence entry is not used: raiseFence ignores it (only a write's result, fenced or not, is returned to the writer).",
  maxWrite:
    'A sink rule the protocol makes unreachable: a write that is not fenced has an ' +
    'epoch equal to the fence, never above it. C7 and C8 raise the fence to the new ' +
    'epoch before any copy holds that epoch (the fence part runs first), and a ' +
    'restart recovers at epoch[k], which the fence already reached. So max(fence, ' +
    'epoch) and min(fence, epoch) are both the fence.',
  descriptor:
    'defineOwn gives a member named `__proto__` its own property; the observation ' +
    'object it builds is new on every observe() and never written again, so whether ' +
    'that property is writable or configurable changes nothing anyone can see (whether it is enumerable does: it ' +
    'decides whether the member is serialized).',
  emptyKey:
    "An empty key's bookkeeping kept: `rowCount` tells when a key has no row left, " +
    'so that its (empty) state can be dropped. Keeping it holds no row, tombstone or ' +
    'match, so every retained count, outcome and change is the same; it costs memory only.',
  changeOrder:
    "Order of a record's changes. J7: the changes of one record are a set; their " +
    'canonical order is by match id, and comparisons treat them as sets (the harness ' +
    'sorts both sides, canonicalChanges). The operator sorts them (compareMatches, ' +
    'with a fast path for ids without UTF-16 surrogates chosen by the `plain` flags) ' +
    'for stable output only: a mutant that orders them otherwise, or takes the slow ' +
    'path for every id, changes nothing the harness may compare.',
  slotInit:
    'The initial slot of a match (-1) is overwritten by addMatch before anything ' +
    'reads it: every match is added to the lists of its endpoints when it is made, ' +
    'and restored ones too.',
  j0:
    "A defensive check: J0's range of L and D. No configuration outside it reaches " +
    'the operator: the harness checks every configuration against the spec ' +
    '(clusterConfigProblem, the config schema) before opening a session, and so does ' +
    'the protocol server (bad_config). Accepting an out-of-range configuration here ' +
    "is unobservable; the operator's own unit tests pin the refusal (impl/operator.test.ts).",
  escapeFastPath:
    'Performance only: escapeMatchIdPart returns a part unchanged when it holds ' +
    'neither `%` nor `/`, before the loop that escapes. Without the shortcut (or ' +
    'with a test for the empty string, which every string contains), the loop copies ' +
    'such a part character by character to the same string.',
  counters:
    "Statistics only: the operator's counters (accepted, duplicate, late, stale, " +
    'rejected by reason, evicted) and its eviction-work counts are read by ' +
    'benchmarks and carried in snapshots, never by the protocol: no reply or ' +
    "observation holds them and no decision reads them. A snapshot's counter must be " +
    'a count (restoring checks it is not negative), so only a mutant that keeps ' +
    'every counter non-negative is equivalent: the work counts are never ' +
    'snapshotted; `rejected` restored empty reads as zeros; accepted retractions of ' +
    'live rows never outnumber the accepted inserts that made those rows.',
  j0Message: "The text of J0's ConfigError, thrown only for a configuration the harness never sends (see J0's range above); not reached.",
  perKeyOperator:
    '`retained(key)` of an operator holding one key: every copy in the cluster has ' +
    "its own operator for its one key (C2), so the totals and that key's counts are " +
    "the same numbers. The same holds for the operator's totals after a restore and " +
    'for the rows of other keys in a checkpoint (there are none).',
  uniqueOrder:
    'Sorting that only fixes a listing order nobody reads: snapshots list keys, ' +
    'ids and matches in §0 order for byte-stable checkpoints, and restoring, ' +
    'the observation and the reports do not depend on that order. (Counting row ' +
    'order numbers down instead of up is not such a change: after a restore the ' +
    'new numbers meet the restored ones, and the interval tree refuses the duplicate.)',
  crashWindow:
    'Only a crash inside one durable write step makes this differ. A commit in phase ' +
    '`fenced` re-raises the fence in case the coordinator crashed after writing the ' +
    'phase and before raising the fence; in the in-memory cluster the harness runs, ' +
    'a protocol crash falls between actions, so the fence is always already raised ' +
    'by then and raising it again (or not, or lower) changes nothing. The on-disk ' +
    "backend's crash tests (cluster.durability.e2e.test.ts) kill a process at every write point.",
  releaseToDown:
    'A release sent to a source that is down: it holds no copy (a crash drops them ' +
    'all, C10), so delivering it drops nothing, as not delivering it does.',
  abortSource:
    "The abort's test of the source: a down worker holds no copy (a crash drops them " +
    'all, C10), and while a migration is in flight before the fence an up source ' +
    'always holds a copy of the key at epoch `from` (frozen, or active after a ' +
    'restart recovered it: the table still names it the owner). So the ' +
    "sub-conditions `src.status === 'up'` and `srcCopy !== undefined` never decide alone.",
  abortDestination:
    "The abort's epoch test of the destination's copy: a frozen copy at the destination of an in-flight migration is " +
    'always the one install made, at epoch `from + 1`, so the test never decides alone. (Its status test does: a paused ' +
    'destination keeps its copy through an abort; an earlier argument that missed pauses was contradicted by a run.)',
  fencePartPhase:
    "The phase written with a failover's first record is replaced at once: fencePart writes the record with phase `fenced` whatever phase it is given.",
  watermarkSlot: 'A watermark has no key: looking its slot up by `record.key` (undefined) finds none, as not looking it up does.',
  wakeHint:
    'Waking is a hint: `wake` marks copies for eager processing to look at, and ' +
    'processing decides by itself (canProcess: the worker up, the copy not frozen, a ' +
    'relevant record at or after its cursor). Waking more copies than the record ' +
    'concerns (every copy of every up worker, or the copies of a paused worker) ' +
    'finds nothing more to process.',
  perfShortcut:
    'Performance only: a shortcut for an empty or one-element result (return at once ' +
    'when no match was made, skip sorting a single change) that gives the same ' +
    'result as the general code it skips.',
  preallocation:
    'Performance only: the change list is allocated at its final length; an array that grows as it is filled holds the same changes.',
  noAlias:
    'The record of a record action is copied before the cluster keeps it, so that the log never aliases an object the ' +
    'caller still holds. Without the copy the log shares the action object; nothing changes unless the caller edits ' +
    'that object after sending it, which the harness never does, and over the protocol every action is parsed afresh. ' +
    '(A record of no known kind is refused by the request schema first.)',
  refusalText:
    "The kind and text of a refusal: the protocol's reply to an action that is not enabled is the not_enabled code " +
    '(§7); its text is for people and is not compared, and the in-process adapter reads only that there is an error.',
  wokenCopy:
    'Every copy woken during an action exists when that action is processed: wake is called only for a copy the worker ' +
    'holds at that moment (its copies, the holders of a key, a copy just installed or unfrozen), no effect drops a copy ' +
    'after waking it within the same action, and processing one copy drops only that copy. So `copy !== undefined` ' +
    'never decides.',
  freezeGuard:
    "The freeze guard's test that the up owner holds an active copy at the key's epoch, and its text: with no handoff " +
    'in flight (tested first) no trace reaches an up owner without that copy (a crash drops every copy and marks the ' +
    'worker down, tested before; restart recovers the copies the table says the worker owns at their checkpointed ' +
    'epoch; a handoff ends by unfreezing or moving the copy). So the test never decides, and weakening it, or any ' +
    'part of it, changes nothing; the text is for people in any case (§7 compares the not_enabled code).',
  failoverKind:
    "A guard's test that the handoff in flight is a migration, where a phase test follows: a failover's handoff record " +
    "is written in phase fenced (fencePart), so persist's `h.phase !== 'frozen'` and abort's test for a phase past the " +
    "fence already refuse it, and `h.kind !== 'migrate'` never decides.",
  sourceCopyExists:
    'An up source in phase frozen always holds its copy (a crash drops it but marks the source down, tested before; ' +
    "restart recovers the copy of a key the source still owns), so the persist guard's `copy === undefined` never decides.",
  commitGuard:
    "The commit guard's epoch test of the destination's copy: during a migration the destination's copy is the one " +
    'install made, at epoch `from + 1` (a crash drops it and marks the worker down; restart recovers only keys the ' +
    'worker owns, which the destination does not yet), so when it exists its epoch is always `from + 1`.',
  duplicateReleaseNoop:
    'A duplicated release never drops anything: it drops only a copy of exactly its epoch (C7), the release action ' +
    'already delivered it once (dropping that copy, or finding none on a crashed worker, C10), and no copy of that ' +
    'epoch comes back to its worker (restart recovers only the keys the worker owns, and a key that returns to it ' +
    'does so at a newer epoch). Not delivering it, as the mutant does, is the same.',
  noRecorder:
    'The sink takes its recorder path only when a history recorder listens (serve --record); the harness runs without ' +
    'one, so taking the plain path always is the same.',
  heapTies:
    'How the eviction queue orders rows of equal end: all of them pass their horizon under the same watermark and are ' +
    'evicted by the same record, and J8 outcome of that record (the retained counts after it; eviction adds no change) ' +
    'does not depend on the order they leave in. Each of these mutants keeps the queue a valid min-heap by end: it only ' +
    'breaks ties otherwise, or moves an equal row past another.',
  heapSlots:
    "The eviction queue's slots at and beyond its count are never read as rows: peek and pop test the count first, the " +
    'operator pops only after peek returned a row, and push writes a slot before it reads it. Leaving a row or a ' +
    'placeholder in such a slot, or starting the heap construction a step further (at leaves or past the end, which ' +
    'sift nothing), changes no row the queue gives.',
  treeBalance:
    "The interval tree's balance (node heights, and the rotations they trigger) bounds the cost of a query, not its " +
    'answer: under any rotations, or none, the tree stays a search tree by (start, order) whose maxEnd values are kept ' +
    'right, so every query visits the same rows, and the outcomes, changes and counts made from them are the same.',
  treeBookkeeping:
    "The tree's entry count and the result of remove are read only by its test helpers (size, checkInvariants); the " +
    'operator ignores what remove returns, so counting wrong or answering false changes nothing it does.',
  uniqueEntries:
    'Tree entries are keyed by (start, order), and every row has its own order number, so two entries never compare ' +
    'equal: `c < 0` and `c <= 0` choose alike, and the entry found at comparison 0 is always the item itself.',
  treeShape:
    'Removing a node with one child through the successor path, instead of lifting the child, leaves a valid search ' +
    'tree with the same entries and right maxEnd values.',
  searchPruning:
    'collect skips a subtree whose maxEnd is before the probe only to save time: without the skip it walks that ' +
    'subtree too, and visits none of it, since each node it reaches is still tested (`n.end >= from`) before it is ' +
    'visited. Same matches, same order; only slower.',
  removesHeld:
    'removeAt reaches an empty subtree only when the item is not in the tree, and the operator removes from its live ' +
    'index only a live row, which that index holds (retractLive, evictRow): the empty case is never reached.',
  maxEndTies: "Taking a child's maxEnd when it equals the one at hand stores the same number.",
  snapshotPointers:
    "The JSON pointers handed to the snapshot's checks say where a check failed; no check fails on a snapshot the " +
    'cluster took itself (that validation is left out, above), so what they say is never read.',
  snapshotEcho:
    "Parts of a snapshot nobody reads back differently: restore takes its bounds from the operator's own config, not " +
    'from the config readSnapshot returns, and the format tag is written and checked by the same constant, so any ' +
    'value of it passes the check it is written for.',
} as const;
