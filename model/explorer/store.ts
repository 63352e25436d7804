// The explorer's visited set and per-state records, in shared memory so that
// several threads can explore one state graph (SharedArrayBuffer; each
// worker thread makes its own views of the same buffers).
//
// States are numbered level by level (every state of a level above every
// state of the levels before it): a thread takes the next index of
// its own block of indices (claimed with an atomic add, INDEX_BLOCK at a
// time) and writes the state's fingerprint (two 32-bit lanes), its parent's
// index and the index of the action that led to it, then publishes the index
// in the open-addressing table with a compare-and-swap on an empty slot
// (lock-free insert). A thread that loses that race to the same fingerprint
// keeps the index for its next new state. What is left of a block when the
// thread's part of a level ends stays unpublished: "holes", flagged and never
// counted. A reader that sees an index in a slot (`Atomics.load`) also sees
// the lanes written before the swap published it.
//
// Per state: 8 bytes of lanes, 4 of parent, 2 of action index, 1 of flags,
// and 4/load bytes of table (a slot: the index and 4 bits of the fingerprint) (load 3/8 to 3/4); with Progress also an edge
// offset (4) and count (2), and 4 bytes per fault-free edge of a state not settled (FLAG_SETTLED).
//
// The table is rebuilt twice as large from the lanes when it is 3/4 full.
// A single thread does it on the spot; threads exploring together agree on
// a pause first (`pauseHere`): every thread still expanding stops between two
// states, the last to arrive rebuilds, and all go on.
//
// Buffers are growable (their address range is reserved once, memory is
// used only as they grow); views have a fixed length, since V8 reads
// length-tracking views of growable buffers about ten times slower, and are
// renewed when a buffer has grown.

// Growable SharedArrayBuffers are in Node 20 (V8 11.3) but in TypeScript's
// ES2024 library, which also declares what Node 20 lacks; declared here alone.
declare global {
  interface SharedArrayBufferConstructor {
    new (byteLength: number, options?: { maxByteLength?: number }): SharedArrayBuffer;
  }
  interface SharedArrayBuffer {
    grow(newByteLength: number): void;
    readonly growable: boolean;
    readonly maxByteLength: number;
  }
}

/**
 * Control words of a store. The index counter, which every thread adds to
 * at every new state, has a cache line of its own (word 32, 128 bytes in,
 * past the adjacent-line prefetch pair): the words every thread reads at
 * every state (the pause request, the stop code) then stay in each core's
 * cache instead of moving to the core that last counted a state.
 */
const COUNT = 32;
const HOLES = 1;
const TABLE_BITS = 2;
const EDGES = 3;
const PAUSE = 4;
const PAUSED = 5;
const ACTIVE = 6;
const GENERATION = 7;
const REBUILDING = 8;
/** The next unit of work of the level being expanded (see the engine). */
export const NEXT_WORK = 9;
/** Why this exploration stopped, as a `StopCode` (0 while it runs). */
export const STOP = 10;
const CONTROL_WORDS = 48;

/** State flags. */
export const FLAG_GOOD = 1;
export const FLAG_HOLE = 2;
/**
 * Good, or one fault-free step from a good state when it was expanded: it can
 * settle (Progress) whatever else it reaches, so its edges are not stored.
 */
export const FLAG_SETTLED = 4;

/** Why an exploration stopped early; 0 while it runs. */
export const STOP_CODES = ['', 'max-states', 'max-seconds', 'violation', 'interrupted'] as const;
export type StopReason = Exclude<(typeof STOP_CODES)[number], ''>;

const MAX_BYTES = 2 ** 32;
/**
 * A table slot holds a state's index + 1 in its low 28 bits and the top 4
 * bits of the state's high lane above them (0 is an empty slot). A probe
 * compares those 4 bits first and reads the state's lanes only when they
 * agree: 15 of 16 slots of other states are passed over without touching
 * the lanes array, each read there being a likely cache miss.
 */
const TAG_MASK = 0xf0000000 | 0;
const INDEX_MASK = 0x0fffffff;
/** Indices fit in the slot's 28 bits (index + 1 < 2^28). */
const MAX_STATES = INDEX_MASK - 1;
const INITIAL_TABLE_BITS = 14;
const INITIAL_STATES = 1 << 12;
const EDGE_BLOCK = 1 << 12;
/**
 * Indices a thread of a concurrent store claims at a time. Its new states'
 * records (fingerprint, parent, action, flags) then fill cache lines no other
 * thread writes, where indices claimed one by one would interleave the
 * threads' states in every line (each write a transfer between cores), and
 * the shared counter is written once per block instead of once per state.
 */
const INDEX_BLOCK = 64;

/** The shared buffers of one store: what a worker thread is sent to take part. */
export interface StoreBuffers {
  readonly control: SharedArrayBuffer;
  readonly table: SharedArrayBuffer;
  readonly lanes: SharedArrayBuffer;
  readonly parent: SharedArrayBuffer;
  readonly via: SharedArrayBuffer;
  readonly flags: SharedArrayBuffer;
  /** With Progress: per state, where its fault-free edges start, how many, and the edges. */
  readonly edgeStart?: SharedArrayBuffer;
  readonly edgeCount?: SharedArrayBuffer;
  readonly edges?: SharedArrayBuffer;
}

const growable = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(bytes, { maxByteLength: MAX_BYTES });

// The buffers of searches that are over, for the next search on this thread
// (`recycleStoreBuffers`): their memory is resident already, where a new
// store's would add to the process's memory until a full garbage collection
// frees the old one (`ci`'s second part runs after its first).
const spareBuffers: StoreBuffers[] = [];
const SPARE_STORES = 2;

/** Empty buffers: a finished search's, emptied, or new ones. */
export function createStoreBuffers(withEdges: boolean): StoreBuffers {
  const spare = spareBuffers.findIndex((b) => (b.edges !== undefined) === withEdges);
  if (spare >= 0) {
    const b = spareBuffers.splice(spare, 1)[0] as StoreBuffers;
    // What a search reads before writing: the control words, the table (its first size; a
    // rebuild clears the larger one), the flags, and with Progress the edge counts.
    const control = new Int32Array(b.control);
    control.fill(0);
    control[TABLE_BITS] = INITIAL_TABLE_BITS;
    new Int32Array(b.table, 0, 1 << INITIAL_TABLE_BITS).fill(0);
    new Uint8Array(b.flags, 0, b.flags.byteLength).fill(0);
    if (b.edgeCount) new Uint16Array(b.edgeCount, 0, b.edgeCount.byteLength >>> 1).fill(0);
    return b;
  }
  const control = new SharedArrayBuffer(CONTROL_WORDS * 4);
  new Int32Array(control)[TABLE_BITS] = INITIAL_TABLE_BITS;
  return {
    control,
    table: growable(4 << INITIAL_TABLE_BITS),
    lanes: growable(8 * INITIAL_STATES),
    parent: growable(4 * INITIAL_STATES),
    via: growable(2 * INITIAL_STATES),
    flags: growable(INITIAL_STATES),
    ...(withEdges
      ? { edgeStart: growable(4 * INITIAL_STATES), edgeCount: growable(2 * INITIAL_STATES), edges: growable(4 * EDGE_BLOCK) }
      : {}),
  };
}

/** Gives the buffers of a search whose report is built (nothing reads them again) to the next search. */
export function recycleStoreBuffers(buffers: StoreBuffers): void {
  if (spareBuffers.length < SPARE_STORES) spareBuffers.push(buffers);
}

/** Grows `sab` to at least `bytes` (in 1.5x steps); safe when other threads grow it too. */
function growTo(sab: SharedArrayBuffer, bytes: number, what: string): void {
  while (sab.byteLength < bytes) {
    if (bytes > MAX_BYTES) throw new RangeError(`the explorer's ${what} would need more than ${MAX_BYTES} bytes`);
    const before = sab.byteLength;
    const target = Math.min(MAX_BYTES, Math.ceil(Math.max(bytes, Math.floor((before * 3) / 2)) / 8) * 8);
    try {
      sab.grow(target);
    } catch (e) {
      // Another thread grew it meanwhile (past `target`): read it again. Otherwise the memory is not there.
      if (sab.byteLength === before) throw e;
    }
  }
}

export class StateStore {
  readonly buffers: StoreBuffers;
  /** Several threads share the store: use atomics and pause to rebuild. */
  readonly concurrent: boolean;
  private readonly control: Int32Array;
  private table!: Int32Array;
  private mask = 0;
  private growAt = 0;
  private lanes!: Int32Array;
  private parents!: Int32Array;
  private vias!: Uint16Array;
  private flagBytes!: Uint8Array;
  private edgeStarts: Uint32Array | undefined;
  private edgeCounts: Uint16Array | undefined;
  private edgeTargets: Int32Array | undefined;
  /** Views cover indices below this. */
  private capacity = 0;
  /** This thread's block of state indices (concurrent stores): next unused, end. */
  private blockNext = 0;
  private blockEnd = 0;
  /** This thread's reserved block of edge slots: next free, end. */
  private edgeNext = 0;
  private edgeLimit = 0;

  constructor(buffers: StoreBuffers, concurrent: boolean) {
    this.buffers = buffers;
    this.concurrent = concurrent;
    this.control = new Int32Array(buffers.control);
    this.refresh();
  }

  /** Renews the views after a buffer grew or the table was rebuilt. */
  refresh(): void {
    const b = this.buffers;
    const bits = Atomics.load(this.control, TABLE_BITS);
    if (this.table === undefined || this.table.length !== 1 << bits) {
      this.table = new Int32Array(b.table, 0, 1 << bits);
      this.mask = (1 << bits) - 1;
      this.growAt = Math.floor(((1 << bits) * 3) / 4);
    }
    const capacity = Math.min(b.lanes.byteLength >>> 3, b.parent.byteLength >>> 2, b.via.byteLength >>> 1, b.flags.byteLength);
    const edgeCapacity = b.edgeStart && b.edgeCount ? Math.min(b.edgeStart.byteLength >>> 2, b.edgeCount.byteLength >>> 1) : capacity;
    // Past MAX_STATES, claiming an index goes through ensureCapacity, which refuses it.
    const n = Math.min(capacity, edgeCapacity, MAX_STATES);
    if (n !== this.capacity) {
      this.capacity = n;
      this.lanes = new Int32Array(b.lanes, 0, n * 2);
      this.parents = new Int32Array(b.parent, 0, n);
      this.vias = new Uint16Array(b.via, 0, n);
      this.flagBytes = new Uint8Array(b.flags, 0, n);
      if (b.edgeStart && b.edgeCount) {
        this.edgeStarts = new Uint32Array(b.edgeStart, 0, n);
        this.edgeCounts = new Uint16Array(b.edgeCount, 0, n);
      }
    }
    if (b.edges && (this.edgeTargets === undefined || this.edgeTargets.length !== b.edges.byteLength >>> 2)) {
      this.edgeTargets = new Int32Array(b.edges, 0, b.edges.byteLength >>> 2);
    }
  }

  /** Slots of the table as this thread last saw it. */
  get tableSlots(): number {
    return this.mask + 1;
  }

  /** Indices claimed so far (holes included). */
  get claimed(): number {
    return Atomics.load(this.control, COUNT);
  }

  /** Distinct states stored: exact once every thread has left the level (till then the unused rest of their blocks counts too). */
  get size(): number {
    return Atomics.load(this.control, COUNT) - Atomics.load(this.control, HOLES);
  }

  /** Bytes of the buffers in use (as grown). */
  bytes(): { visited: number; edges: number } {
    const b = this.buffers;
    return {
      visited: b.table.byteLength + b.lanes.byteLength + b.parent.byteLength + b.via.byteLength + b.flags.byteLength,
      edges: (b.edgeStart?.byteLength ?? 0) + (b.edgeCount?.byteLength ?? 0) + (b.edges?.byteLength ?? 0),
    };
  }

  private ensureCapacity(index: number): void {
    if (index >= MAX_STATES) throw new RangeError(`the explorer's visited set holds at most ${MAX_STATES} states`);
    const b = this.buffers;
    const n = index + 1;
    growTo(b.lanes, 8 * n, 'fingerprints');
    growTo(b.parent, 4 * n, 'parent links');
    growTo(b.via, 2 * n, 'action indices');
    growTo(b.flags, n, 'state flags');
    if (b.edgeStart && b.edgeCount) {
      growTo(b.edgeStart, 4 * n, 'edge offsets');
      growTo(b.edgeCount, 2 * n, 'edge counts');
    }
    this.refresh();
  }

  /**
   * The table slot where a fingerprint with low lane `lo` starts its probe, read and thrown away
   * (`expandBytes` touches a batch of them so that their cache misses overlap). A plain read: on
   * another thread's rebuild it may read the old table, which does no harm.
   */
  peek(lo: number): number {
    return this.table[lo & this.mask] as number;
  }

  /** The index of the state with this fingerprint, or -1. */
  find(hi: number, lo: number): number {
    const concurrent = this.concurrent;
    const tag = hi & TAG_MASK;
    for (let slot = lo & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = concurrent ? Atomics.load(this.table, slot) : (this.table[slot] as number);
      if (entry === 0) return -1;
      if ((entry & TAG_MASK) !== tag) continue;
      const index = (entry & INDEX_MASK) - 1;
      const at = index << 1;
      if (at >= this.lanes.length) this.refresh();
      if (this.lanes[at + 1] === lo && this.lanes[at] === hi) return index;
    }
  }

  /**
   * The index of the state with this fingerprint if stored; else stores it
   * (with its parent and action index) and returns `-(index + 1)`.
   */
  insert(hi: number, lo: number, parent: number, via: number): number {
    const concurrent = this.concurrent;
    const tag = hi & TAG_MASK;
    let claimed = -1;
    let slot = lo & this.mask;
    for (;;) {
      let entry = concurrent ? Atomics.load(this.table, slot) : (this.table[slot] as number);
      if (entry === 0) {
        if (claimed < 0) {
          if (concurrent) claimed = this.nextIndex();
          else {
            claimed = this.control[COUNT] as number;
            this.control[COUNT] = claimed + 1;
            if (claimed >= this.capacity) this.ensureCapacity(claimed);
          }
          this.lanes[claimed << 1] = hi;
          this.lanes[(claimed << 1) + 1] = lo;
          this.parents[claimed] = parent;
          this.vias[claimed] = via;
        }
        if (!concurrent) {
          this.table[slot] = tag | (claimed + 1);
          if (claimed + 1 > this.growAt) this.rebuild();
          return -(claimed + 1);
        }
        entry = Atomics.compareExchange(this.table, slot, 0, tag | (claimed + 1));
        if (entry === 0) {
          // Published: no longer a hole (the index is this thread's, no other writes its flags yet).
          this.flagBytes[claimed] = 0;
          this.blockNext = claimed + 1;
          if (claimed + 1 > this.growAt) Atomics.store(this.control, PAUSE, 1);
          return -(claimed + 1);
        }
      }
      if ((entry & TAG_MASK) === tag) {
        const index = (entry & INDEX_MASK) - 1;
        const at = index << 1;
        if (at >= this.lanes.length) this.refresh();
        // Another thread published this state first: the index claimed for it stays this thread's next.
        if (this.lanes[at + 1] === lo && this.lanes[at] === hi) return index;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /**
   * The next index of this thread's block (concurrent stores), claiming a new
   * block when it is used up. Its flags say hole until the index is
   * published (`insert`): a rebuild, or a report, passes over it till then.
   */
  private nextIndex(): number {
    if (this.blockNext < this.blockEnd) return this.blockNext;
    const start = Atomics.add(this.control, COUNT, INDEX_BLOCK);
    if (start + INDEX_BLOCK > this.capacity) this.ensureCapacity(start + INDEX_BLOCK - 1);
    this.flagBytes.fill(FLAG_HOLE, start, start + INDEX_BLOCK);
    this.blockNext = start;
    this.blockEnd = start + INDEX_BLOCK;
    return start;
  }

  /**
   * Gives up the rest of this thread's block of indices: they stay holes. At
   * the end of this thread's part of a level, so that every index of the
   * next level is above the level's end (engine.ts).
   */
  releaseIndices(): void {
    const unused = this.blockEnd - this.blockNext;
    if (unused > 0) Atomics.add(this.control, HOLES, unused);
    this.blockNext = this.blockEnd = 0;
  }

  /** Stores a state under a new index without the table (the exact visited set keeps its own index); one thread only. */
  add(hi: number, lo: number, parent: number, via: number): number {
    const index = this.control[COUNT] as number;
    this.control[COUNT] = index + 1;
    if (index >= this.capacity) this.ensureCapacity(index);
    this.lanes[index << 1] = hi;
    this.lanes[(index << 1) + 1] = lo;
    this.parents[index] = parent;
    this.vias[index] = via;
    return index;
  }

  /** Do the stored lanes at `index` equal this fingerprint? */
  matches(index: number, hi: number, lo: number): boolean {
    if (index >= this.capacity) this.refresh();
    return this.lanes[index << 1] === hi && this.lanes[(index << 1) + 1] === lo;
  }

  parent(index: number): number {
    if (index >= this.capacity) this.refresh();
    return this.parents[index] as number;
  }

  via(index: number): number {
    if (index >= this.capacity) this.refresh();
    return this.vias[index] as number;
  }

  flags(index: number): number {
    if (index >= this.capacity) this.refresh();
    return this.flagBytes[index] as number;
  }

  /** Every state's flags (for the Progress check, once exploration is over). */
  allFlags(): Uint8Array {
    this.refresh();
    return this.flagBytes;
  }

  /** Sets flag bits of a state this thread claimed, or expands (no other thread writes them: its discovery was a level before). */
  setFlags(index: number, bits: number): void {
    if (index >= this.capacity) this.refresh();
    this.flagBytes[index] = (this.flagBytes[index] as number) | bits;
  }

  /** Records the fault-free edges of `index` (its successors' indices), for Progress. */
  setEdges(index: number, targets: Int32Array, n: number): void {
    if (this.edgeNext + n > this.edgeLimit) {
      const block = Math.max(EDGE_BLOCK, n);
      const start = this.concurrent ? Atomics.add(this.control, EDGES, block) : (this.control[EDGES] as number);
      if (!this.concurrent) this.control[EDGES] = start + block;
      growTo(this.buffers.edges as SharedArrayBuffer, 4 * (start + block), 'edges');
      this.edgeNext = start;
      this.edgeLimit = start + block;
    }
    if (index >= this.capacity || this.edgeLimit > (this.edgeTargets?.length ?? 0)) this.refresh();
    const edges = this.edgeTargets as Int32Array;
    for (let i = 0; i < n; i++) edges[this.edgeNext + i] = targets[i] as number;
    (this.edgeStarts as Uint32Array)[index] = this.edgeNext;
    (this.edgeCounts as Uint16Array)[index] = n;
    this.edgeNext += n;
  }

  /** The fault-free edges of every state: for the Progress check, once exploration is over. */
  edgeLists(): { start: Uint32Array; count: Uint16Array; targets: Int32Array } {
    this.refresh();
    return { start: this.edgeStarts as Uint32Array, count: this.edgeCounts as Uint16Array, targets: this.edgeTargets as Int32Array };
  }

  // --- stopping

  stopReason(): StopReason | undefined {
    const code = Atomics.load(this.control, STOP);
    return code === 0 ? undefined : (STOP_CODES[code] as StopReason);
  }

  /** Stops the exploration (the first reason given stands). */
  stop(reason: StopReason): void {
    Atomics.compareExchange(this.control, STOP, 0, STOP_CODES.indexOf(reason));
  }

  // --- level work (see the engine): a shared counter of claimed units

  resetWork(active: number): void {
    Atomics.store(this.control, NEXT_WORK, 0);
    Atomics.store(this.control, ACTIVE, active);
  }

  claimWork(): number {
    return Atomics.add(this.control, NEXT_WORK, 1);
  }

  /**
   * A thread joins a level the others are already expanding (a thread that
   * fell idle helps a part still running): it counts itself active, so that
   * a pause for a rebuild waits for it too, and takes part in a pause
   * already asked for before it touches the table.
   */
  joinWork(): void {
    Atomics.add(this.control, ACTIVE, 1);
    this.refresh();
    if (this.pauseRequested()) this.pauseHere();
  }

  // --- rebuilding the table

  /** Has a thread asked the others to pause so the table can be rebuilt? */
  pauseRequested(): boolean {
    return this.concurrent && Atomics.load(this.control, PAUSE) !== 0;
  }

  /** Waits here, between two states, while the table is rebuilt (a thread still expanding must call this when asked). */
  pauseHere(): void {
    const generation = Atomics.load(this.control, GENERATION);
    if (Atomics.load(this.control, PAUSE) === 0) return;
    Atomics.add(this.control, PAUSED, 1);
    this.rebuildIfAllPaused();
    while (Atomics.load(this.control, GENERATION) === generation) Atomics.wait(this.control, GENERATION, generation, 50);
    this.refresh();
  }

  /** This thread has no more work in the level: it stops taking part in pauses. */
  leave(): void {
    this.releaseIndices();
    Atomics.sub(this.control, ACTIVE, 1);
    this.rebuildIfAllPaused();
  }

  private rebuildIfAllPaused(): void {
    const c = this.control;
    if (Atomics.load(c, PAUSE) === 0 || Atomics.load(c, PAUSED) !== Atomics.load(c, ACTIVE)) return;
    if (Atomics.compareExchange(c, REBUILDING, 0, 1) !== 0) return;
    this.rebuild();
    Atomics.store(c, PAUSED, 0);
    Atomics.store(c, PAUSE, 0);
    Atomics.store(c, REBUILDING, 0);
    Atomics.add(c, GENERATION, 1);
    Atomics.notify(c, GENERATION);
  }

  /** Doubles the table and re-inserts every stored index from its low lane (holes left out). */
  private rebuild(): void {
    const bits = Atomics.load(this.control, TABLE_BITS) + 1;
    if (bits > 30) throw new RangeError('the explorer visited set is full (2^30 slots)');
    growTo(this.buffers.table, 4 << bits, 'visited table');
    const table = new Int32Array(this.buffers.table, 0, 1 << bits);
    table.fill(0);
    Atomics.store(this.control, TABLE_BITS, bits);
    this.refresh();
    const mask = (1 << bits) - 1;
    const n = Atomics.load(this.control, COUNT);
    const lanes = this.lanes;
    const flags = this.flagBytes;
    for (let index = 0; index < n; index++) {
      if (((flags[index] as number) & FLAG_HOLE) !== 0) continue;
      let slot = (lanes[(index << 1) + 1] as number) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = ((lanes[index << 1] as number) & TAG_MASK) | (index + 1);
    }
  }
}
