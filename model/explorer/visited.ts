// Keying states: the fingerprint (or exact key) a state is stored under, and
// the bytes the frontier keeps of it (a codec's encoding, or a handle to the
// object itself); and the visited set as the engine (engine.ts) uses it: the
// shared store, plus the exact keys in exact mode.
import { ByteReader, ByteWriter } from './bytes.ts';
import { fingerprintBytes, fingerprintLanes, fingerprintOf } from './fingerprint.ts';
import type { FrontierReader, FrontierWriter } from './frontier.ts';
import type { StateStore } from './store.ts';
import type { ByteSuccessors, Model, VisitedMode } from './types.ts';

export interface Keyer<S> {
  /** Keys `state` (fingerprint in `lanes`, and `exactKey` with the exact visited set); returns the state that is stored. */
  key(state: S): S;
  readonly lanes: Int32Array;
  exactKey: string;
  /** Appends the last keyed state to the frontier. */
  append(out: FrontierWriter, index: number): void;
  /** The state of the frontier reader's current record. */
  read(input: FrontierReader): S;
  /** Whether states live outside this thread's memory (bytes): needed for spilling and for other threads. */
  readonly portable: boolean;
  /**
   * With a codec that has `successors`: keys its `k`-th successor of the loaded state, written as
   * bytes, as the `at`-th of a batch (below SUCCESSOR_BATCH); returns the action's kind. The
   * batch's fingerprints are in `batchLanes`; `select(at)` makes one of them the last keyed state.
   * The kind is returned as its number in `kindNames(successors)`.
   */
  keySuccessorAt?(successors: ByteSuccessors, k: number, at: number): number;
  /** As `keySuccessorAt`, alone (no batch): the successor is then the last keyed state. */
  keySuccessor?(successors: ByteSuccessors, k: number): number;
  /** The kinds by the numbers `keySuccessor` and `keySuccessorAt` return for `successors`. */
  kindNames?(successors: ByteSuccessors): readonly string[];
  /** The fingerprints of the batch keyed by `keySuccessorAt`, two lanes each. */
  readonly batchLanes?: Int32Array;
  /** Makes the `at`-th state of the batch the last keyed one (for the visited set, `append`, `readKeyed`). */
  select?(at: number): void;
  /** The state last keyed or selected, read back from its bytes. */
  readKeyed?(): S;
}

/**
 * Successors a codec keyer keys before any is stored: the engine then touches
 * the table slots of the whole batch at once, so their cache misses overlap
 * (engine.ts `expandBytes`).
 */
export const SUCCESSOR_BATCH = 16;

/** Whether the successors number their kinds themselves (`ByteSuccessors.writeNumbered`). */
const numbered = (successors: ByteSuccessors): boolean => successors.writeNumbered !== undefined && successors.kindNames !== undefined;

/** The identifying bytes as a string of char codes (the exact visited set's key). */
function bytesKey(bytes: Uint8Array, end: number): string {
  let s = '';
  for (let i = 0; i < end; i += 4096)
    s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 4096)) as unknown as number[]);
  return s;
}

class CodecKeyer<S> implements Keyer<S> {
  readonly lanes = new Int32Array(2);
  exactKey = '';
  readonly portable = true;
  private readonly out = new ByteWriter(512);
  /** Where the last keyed or selected state's bytes are: `out`, or a writer of the batch. */
  private current: ByteWriter = this.out;
  private readonly batch: ByteWriter[] = [];
  readonly batchLanes = new Int32Array(2 * SUCCESSOR_BATCH);
  private readonly batchKeys: string[] = [];
  private readonly keyedReader = new ByteReader();
  /** The kinds of successors that do not number theirs (`written`), by number, and the reverse. */
  private readonly kindList: string[] = [];
  private readonly kindNumbers = new Map<string, number>();
  private readonly codec: NonNullable<Model<S, unknown>['codec']>;
  private readonly symmetric: boolean;
  private readonly exact: boolean;

  constructor(codec: NonNullable<Model<S, unknown>['codec']>, symmetric: boolean, exact: boolean) {
    this.codec = codec;
    this.symmetric = symmetric;
    this.exact = exact;
  }

  key(state: S): S {
    const out = this.out.reset();
    this.codec.write(state, out, this.symmetric);
    this.keyWritten(out);
    this.current = out;
    return state;
  }

  keySuccessor(successors: ByteSuccessors, k: number): number {
    const out = this.out.reset();
    const kind = this.written(successors, k, out);
    this.keyWritten(out);
    this.current = out;
    return kind;
  }

  keySuccessorAt(successors: ByteSuccessors, k: number, at: number): number {
    let out = this.batch[at];
    if (out === undefined) this.batch[at] = out = new ByteWriter(512);
    const kind = this.written(successors, k, out.reset());
    this.keyWritten(out);
    this.batchLanes[2 * at] = this.lanes[0] as number;
    this.batchLanes[2 * at + 1] = this.lanes[1] as number;
    if (this.exact) this.batchKeys[at] = this.exactKey;
    return kind;
  }

  kindNames(successors: ByteSuccessors): readonly string[] {
    return numbered(successors) ? (successors.kindNames as readonly string[]) : this.kindList;
  }

  /** Writes the `k`-th successor into `out`; returns its kind's number (`kindNames`). */
  private written(successors: ByteSuccessors, k: number, out: ByteWriter): number {
    if (numbered(successors)) return (successors.writeNumbered as NonNullable<ByteSuccessors['writeNumbered']>)(k, out, this.symmetric);
    // Successors that name their kinds only: numbered here, in the order they first come.
    const kind = successors.write(k, out, this.symmetric);
    let n = this.kindNumbers.get(kind);
    if (n === undefined) {
      n = this.kindList.length;
      this.kindList.push(kind);
      this.kindNumbers.set(kind, n);
    }
    return n;
  }

  select(at: number): void {
    this.lanes[0] = this.batchLanes[2 * at] as number;
    this.lanes[1] = this.batchLanes[2 * at + 1] as number;
    if (this.exact) this.exactKey = this.batchKeys[at] as string;
    this.current = this.batch[at] as ByteWriter;
  }

  readKeyed(): S {
    return this.codec.read(this.keyedReader.reset(this.current.bytes, 0, this.current.length));
  }

  private keyWritten(out: ByteWriter): void {
    if (out.keyEnd < 0) throw new Error('a StateCodec must call endKey() after the identifying bytes');
    fingerprintBytes(out.bytes, 0, out.keyEnd, this.lanes);
    if (this.exact) this.exactKey = bytesKey(out.bytes, out.keyEnd);
  }

  append(writer: FrontierWriter, index: number): void {
    writer.append(index, this.current.bytes, 0, this.current.length);
  }

  read(input: FrontierReader): S {
    return this.codec.read(input.reader);
  }
}

/** For a model without a codec: states stay objects, held here by handle (one thread, no spilling). */
class ObjectKeyer<S> implements Keyer<S> {
  readonly lanes = new Int32Array(2);
  exactKey = '';
  readonly portable = false;
  private readonly model: Model<S, unknown>;
  private readonly representative: ((s: S) => S) | undefined;
  private readonly exact: boolean;
  private current: S | undefined;
  private readonly held = new Map<number, S>();
  private nextHandle = 0;
  private readonly handle = new Uint8Array(4);

  constructor(model: Model<S, unknown>, symmetric: boolean, exact: boolean) {
    this.model = model;
    this.representative = symmetric ? model.representative?.bind(model) : undefined;
    this.exact = exact;
  }

  key(state: S): S {
    const s = this.representative ? this.representative(state) : state;
    this.current = s;
    if (this.exact) {
      this.exactKey = this.model.encode(s);
      fingerprintOf(this.exactKey);
      this.lanes[0] = fingerprintLanes[0] as number;
      this.lanes[1] = fingerprintLanes[1] as number;
    } else if (this.model.fingerprint) {
      this.model.fingerprint(s, this.lanes);
    } else {
      fingerprintOf(this.model.encode(s));
      this.lanes[0] = fingerprintLanes[0] as number;
      this.lanes[1] = fingerprintLanes[1] as number;
    }
    return s;
  }

  append(writer: FrontierWriter, index: number): void {
    const h = this.nextHandle++;
    this.held.set(h, this.current as S);
    const b = this.handle;
    b[0] = h & 0xff;
    b[1] = (h >>> 8) & 0xff;
    b[2] = (h >>> 16) & 0xff;
    b[3] = (h >>> 24) & 0xff;
    writer.append(index, b, 0, 4);
  }

  read(input: FrontierReader): S {
    const b = input.data;
    const at = input.start;
    const h = ((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16) | ((b[at + 3] as number) << 24)) >>> 0;
    const s = this.held.get(h) as S;
    this.held.delete(h);
    return s;
  }
}

export function makeKeyer<S>(model: Model<S, unknown>, settings: { readonly visited: VisitedMode; readonly symmetry: boolean }): Keyer<S> {
  const exact = settings.visited === 'exact';
  return model.codec
    ? new CodecKeyer(model.codec, settings.symmetry && model.codec.symmetric, exact)
    : new ObjectKeyer(model, settings.symmetry, exact);
}

/** The exact visited set's index: the identifying keys themselves (one thread). */
export class ExactKeys {
  readonly indexOf = new Map<string, number>();
  readonly keys: string[] = [];
  chars = 0;

  /** An estimate: each key's characters (one byte each), a 16-byte string header, ~40 bytes per Map entry, 8 per slot. */
  bytes(): number {
    return this.chars + this.keys.length * (16 + 40 + 8);
  }
}

/** The visited set as the engine uses it: the store, plus the exact keys in exact mode. */
export class Visited<S> {
  readonly store: StateStore;
  readonly exact: ExactKeys | undefined;
  readonly keyer: Keyer<S>;

  constructor(store: StateStore, exact: ExactKeys | undefined, keyer: Keyer<S>) {
    this.store = store;
    this.exact = exact;
    this.keyer = keyer;
  }

  /** The index of the last keyed state, or -1. */
  find(): number {
    if (this.exact) return this.exact.indexOf.get(this.keyer.exactKey) ?? -1;
    return this.store.find(this.keyer.lanes[0] as number, this.keyer.lanes[1] as number);
  }

  /** Index of the last keyed state if stored, else stores it and returns `-(index + 1)`. */
  insert(parent: number, via: number): number {
    const hi = this.keyer.lanes[0] as number;
    const lo = this.keyer.lanes[1] as number;
    const exact = this.exact;
    if (!exact) return this.store.insert(hi, lo, parent, via);
    const key = this.keyer.exactKey;
    const known = exact.indexOf.get(key);
    if (known !== undefined) return known;
    const index = this.store.add(hi, lo, parent, via);
    exact.indexOf.set(key, index);
    exact.keys.push(key);
    exact.chars += key.length;
    return -(index + 1);
  }

  /** Is the state stored at `index` the last keyed one? */
  matches(index: number): boolean {
    if (this.exact) return this.exact.keys[index] === this.keyer.exactKey;
    return this.store.matches(index, this.keyer.lanes[0] as number, this.keyer.lanes[1] as number);
  }
}
