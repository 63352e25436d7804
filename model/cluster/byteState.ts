// The explored cluster state as one array of small integers, and the
// codec's bytes (codec.ts) to it and back, for the successors computed on
// bytes (byteSuccessors.ts). Read it beside codec.ts: `decode` reads what
// `read` reads and `encode` writes what `write` writes, in the same order,
// byte for byte (byteSuccessors.test.ts checks it on every state of a preset).
// Worker references are worker positions (config order), -1 for none; the
// workers' blocks are written sorted by their bytes with symmetry (SPEC §6).
import type { ByteReader, ByteWriter } from '../explorer/index.ts';

// Marks in a worker's block (as codec.ts writes them).
export const HANDOFF_SRC = 4;
export const HANDOFF_DST = 8;
export const COPY = 1;
export const FROZEN = 2;
export const OWNER = 4;
export const INSTALL_DST = 8;
export const RELEASE_SRC = 16;

// The state as integers. Worker references are worker positions (config order); -1 is none.
export const L = 0; // log length
export const USED = 1; // six budgets: migrations, failovers, crashes, pauses, duplicates, checkpoints
export const MIGRATIONS = USED;
export const FAILOVERS = USED + 1;
export const CRASHES = USED + 2;
export const PAUSES = USED + 3;
export const DUPLICATES = USED + 4;
export const CHECKPOINTS = USED + 5;
export const UP = 7; // the coordinator
export const H = 8; // a handoff in flight: 1, else 0
export const H_KIND = 9; // 0 migrate, 1 failover
export const H_PHASE = 10; // frozen, persisted, installed, fenced, committed
export const H_KEY = 11;
export const H_FROM = 12;
export const H_SRC = 13;
export const H_DST = 14;
export const APPLIED = 15;
export const DEDUPED = 16;
export const FENCED_WRITES = 17;
export const VIOLATED = 18;
export const GLOBALS = 19;
// Per key, at GLOBALS + k * keyStride:
export const EPOCH = 0;
export const OWNER_OF = 1;
export const FENCE = 2;
export const PREFIX = 3;
export const STORE_CURSOR = 4; // cursor + 1, or 0 without a checkpoint
export const STORE_EPOCH = 5;
export const INSTALL_EPOCH = 6; // the last install message's epoch + 1, or 0 without one
export const INSTALL_CURSOR = 7; // its checkpoint's cursor + 1, or 0 without one
export const INSTALL_CP_EPOCH = 8;
export const INSTALL_TO = 9;
export const RELEASE_EPOCH = 10; // the last release message's epoch + 1, or 0 without one
export const RELEASE_FROM = 11;
export const MATCHES = 12; // per match number: 0 absent, 1 inserted, 2 retracted
// Per worker, at workersAt + w * workerStride: the status (0 up, 1 paused, 2 down), then per key (HAS, CURSOR, EPOCH, FROZEN_COPY).
export const HAS = 1;
export const CURSOR = 2;
export const COPY_EPOCH = 3;
export const FROZEN_COPY = 4;

export const PHASE_FROZEN = 0;
export const PHASE_PERSISTED = 1;
export const PHASE_INSTALLED = 2;
export const PHASE_FENCED = 3;
export const PHASE_COMMITTED = 4;
export const PHASE_NAMES = ['frozen', 'persisted', 'installed', 'fenced', 'committed'] as const;

/** The integers of one configuration's states: where each field lies, and reading and writing bytes. */
export class ByteState {
  protected readonly nk: number;
  protected readonly nw: number;
  protected readonly keyStride: number;
  protected readonly workersAt: number;
  protected readonly workerStride: number;
  /** The number of integers of a state. */
  protected readonly size: number;
  // Scratch for the worker blocks: each at i * blockStride, its length, and the order they are written in.
  private readonly blockStride: number;
  private readonly blocks: Uint8Array;
  private readonly blockLengths: Int32Array;
  private readonly order: Int32Array;
  /** Scratch for `writeOneKeyBlocks`: each worker's block as one integer. */
  private readonly packed: Int32Array;
  /** At most the bytes of a state: a varint of at most 5 bytes per integer, plus the blocks. */
  private readonly maxBytes: number;

  /** For `keys` keys, `workers` workers and at most `matches` match ids per key. */
  constructor(keys: number, workers: number, matches: number) {
    this.nk = keys;
    this.nw = workers;
    this.keyStride = MATCHES + matches;
    this.workersAt = GLOBALS + this.nk * this.keyStride;
    this.workerStride = 1 + 4 * this.nk;
    this.size = this.workersAt + this.nw * this.workerStride;
    this.blockStride = 16 + 16 * this.nk;
    this.blocks = new Uint8Array(this.nw * this.blockStride);
    this.blockLengths = new Int32Array(this.nw);
    this.order = new Int32Array(this.nw);
    this.packed = new Int32Array(this.nw);
    this.maxBytes = 5 * this.size + this.nw * this.blockStride;
  }

  /** The base of key `k`'s fields. */
  protected keyAt(k: number): number {
    return GLOBALS + k * this.keyStride;
  }

  /** Where worker `w`'s status lies. */
  protected workerAt(w: number): number {
    return this.workersAt + w * this.workerStride;
  }

  /** The base of worker `w`'s copy of key `k`. */
  protected copyAt(w: number, k: number): number {
    return this.workersAt + w * this.workerStride + k * 4;
  }

  protected status(s: Int32Array, w: number): number {
    return s[this.workerAt(w)] as number;
  }

  /** Reads the bytes `r` holds into `s`; false, unfinished, when they carry a violation (its text is the object path's). */
  protected decode(r: ByteReader, s: Int32Array): boolean {
    s.fill(0);
    s[L] = r.uint();
    for (let i = 0; i < 6; i++) s[USED + i] = r.uint();
    const flags = r.u8();
    s[UP] = flags & 1;
    s[H_SRC] = -1;
    s[H_DST] = -1;
    if ((flags & 2) !== 0) {
      const b = r.u8();
      s[H] = 1;
      s[H_KIND] = b & 1;
      s[H_PHASE] = b >> 1;
      s[H_KEY] = r.uint();
      s[H_FROM] = r.uint();
    }
    const nk = this.nk;
    for (let k = 0; k < nk; k++) s[this.keyAt(k) + EPOCH] = r.uint();
    for (let k = 0; k < nk; k++) {
      const at = this.keyAt(k);
      s[at + FENCE] = r.uint();
      for (let i = r.uint(); i > 0; i--) {
        const x = r.uint();
        s[at + MATCHES + (x >> 1)] = (x & 1) === 1 ? 1 : 2;
      }
    }
    s[VIOLATED] = r.u8();
    if (s[VIOLATED] !== 0) return false;
    for (let k = 0; k < nk; k++) s[this.keyAt(k) + PREFIX] = r.uint();
    for (let k = 0; k < nk; k++) s[this.keyAt(k) + STORE_CURSOR] = r.uint();
    for (let k = 0; k < nk; k++) {
      const at = this.keyAt(k);
      s[at + INSTALL_EPOCH] = r.uint();
      if (s[at + INSTALL_EPOCH] !== 0) s[at + INSTALL_CURSOR] = r.uint();
      s[at + RELEASE_EPOCH] = r.uint();
      s[at + OWNER_OF] = -1;
      s[at + INSTALL_TO] = -1;
      s[at + RELEASE_FROM] = -1;
    }
    for (let w = 0; w < this.nw; w++) {
      const b = r.u8();
      s[this.workerAt(w)] = b & 3;
      if ((b & HANDOFF_SRC) !== 0) s[H_SRC] = w;
      if ((b & HANDOFF_DST) !== 0) s[H_DST] = w;
      for (let k = 0; k < nk; k++) {
        const marks = r.u8();
        const at = this.keyAt(k);
        if ((marks & OWNER) !== 0) s[at + OWNER_OF] = w;
        if ((marks & INSTALL_DST) !== 0) s[at + INSTALL_TO] = w;
        if ((marks & RELEASE_SRC) !== 0) s[at + RELEASE_FROM] = w;
        if ((marks & COPY) !== 0) {
          const c = this.copyAt(w, k);
          s[c + HAS] = 1;
          s[c + CURSOR] = r.uint();
          s[c + COPY_EPOCH] = r.uint();
          s[c + FROZEN_COPY] = (marks & FROZEN) !== 0 ? 1 : 0;
        }
      }
    }
    for (let k = 0; k < nk; k++) {
      const at = this.keyAt(k);
      if (s[at + STORE_CURSOR] !== 0) s[at + STORE_EPOCH] = r.uint();
      if (s[at + INSTALL_EPOCH] !== 0 && s[at + INSTALL_CURSOR] !== 0) s[at + INSTALL_CP_EPOCH] = r.uint();
    }
    s[APPLIED] = r.uint();
    s[DEDUPED] = r.uint();
    s[FENCED_WRITES] = r.uint();
    return true;
  }

  protected encode(s: Int32Array, out: ByteWriter, symmetric: boolean): void {
    // Straight into the writer's array: every field is a varint of at most 5 bytes, the blocks at most their stride.
    out.ensure(this.maxBytes);
    const b = out.bytes;
    let p = out.length;
    const nk = this.nk;
    for (let i = L; i < USED + 6; i++) p = writeVarint(b, p, s[i] as number);
    const h = s[H] !== 0;
    b[p++] = (s[UP] as number) | (h ? 2 : 0);
    if (h) {
      b[p++] = (s[H_KIND] as number) | ((s[H_PHASE] as number) << 1);
      p = writeVarint(b, p, s[H_KEY] as number);
      p = writeVarint(b, p, s[H_FROM] as number);
    }
    for (let k = 0; k < nk; k++) p = writeVarint(b, p, s[this.keyAt(k) + EPOCH] as number);
    for (let k = 0; k < nk; k++) {
      const at = this.keyAt(k);
      const end = at + this.keyStride;
      p = writeVarint(b, p, s[at + FENCE] as number);
      let n = 0;
      for (let m = at + MATCHES; m < end; m++) if (s[m] !== 0) n++;
      p = writeVarint(b, p, n);
      for (let m = at + MATCHES; m < end; m++) if (s[m] !== 0) p = writeVarint(b, p, (m - at - MATCHES) * 2 + (s[m] === 1 ? 1 : 0));
    }
    b[p++] = 0; // no violation (a step that records one takes the object path)
    for (let k = 0; k < nk; k++) p = writeVarint(b, p, s[this.keyAt(k) + PREFIX] as number);
    for (let k = 0; k < nk; k++) p = writeVarint(b, p, s[this.keyAt(k) + STORE_CURSOR] as number);
    for (let k = 0; k < nk; k++) {
      const at = this.keyAt(k);
      p = writeVarint(b, p, s[at + INSTALL_EPOCH] as number);
      if (s[at + INSTALL_EPOCH] !== 0) p = writeVarint(b, p, s[at + INSTALL_CURSOR] as number);
      p = writeVarint(b, p, s[at + RELEASE_EPOCH] as number);
    }
    p = this.writeBlocks(s, b, p, symmetric);
    out.length = p;
    out.endKey();
    for (let k = 0; k < nk; k++) {
      const at = this.keyAt(k);
      if (s[at + STORE_CURSOR] !== 0) p = writeVarint(b, p, s[at + STORE_EPOCH] as number);
      if (s[at + INSTALL_EPOCH] !== 0 && s[at + INSTALL_CURSOR] !== 0) p = writeVarint(b, p, s[at + INSTALL_CP_EPOCH] as number);
    }
    p = writeVarint(b, p, s[APPLIED] as number);
    p = writeVarint(b, p, s[DEDUPED] as number);
    out.length = writeVarint(b, p, s[FENCED_WRITES] as number);
  }

  /** Writes the workers' blocks with their marks at `b[p..]`, sorted by their bytes when `symmetric` (codec.ts `writeWorkers`); returns the end. */
  protected writeBlocks(s: Int32Array, b: Uint8Array, at: number, symmetric: boolean): number {
    if (this.nk === 1) {
      const end = this.writeOneKeyBlocks(s, b, at, symmetric);
      if (end >= 0) return end;
    }
    return this.writeAnyBlocks(s, b, at, symmetric);
  }

  /** `writeBlocks` for any state: each block written out in a scratch array, then sorted by its bytes. */
  protected writeAnyBlocks(s: Int32Array, b: Uint8Array, at: number, symmetric: boolean): number {
    const nk = this.nk;
    const n = this.nw;
    const blocks = this.blocks;
    const stride = this.blockStride;
    for (let w = 0; w < n; w++) {
      let p = w * stride;
      blocks[p++] = (s[this.workerAt(w)] as number) | handoffMarks(s, w);
      for (let k = 0; k < nk; k++) {
        const c = this.copyAt(w, k);
        const has = s[c + HAS] !== 0;
        blocks[p++] = (has ? COPY | (s[c + FROZEN_COPY] !== 0 ? FROZEN : 0) : 0) | referenceMarks(s, this.keyAt(k), w);
        if (has) {
          p = writeVarint(blocks, p, s[c + CURSOR] as number);
          p = writeVarint(blocks, p, s[c + COPY_EPOCH] as number);
        }
      }
      this.blockLengths[w] = p - w * stride;
    }
    const order = this.order;
    for (let i = 0; i < n; i++) order[i] = i;
    if (symmetric) {
      for (let i = 1; i < n; i++) {
        const v = order[i] as number;
        let j = i - 1;
        while (j >= 0 && this.compareBlocks(order[j] as number, v) > 0) {
          order[j + 1] = order[j] as number;
          j--;
        }
        order[j + 1] = v;
      }
    }
    let q = at;
    for (let r = 0; r < n; r++) {
      const from = (order[r] as number) * stride;
      const to = from + (this.blockLengths[order[r] as number] as number);
      for (let i = from; i < to; i++) b[q++] = blocks[i] as number;
    }
    return q;
  }

  protected compareBlocks(a: number, b: number): number {
    return compareBlocks(this.blocks, this.blockLengths, this.blockStride, a, b);
  }

  /**
   * `writeBlocks` for one key whose copies' cursors and epochs are below 128 (every state of a
   * preset the explorer exhausts; it returns -1 for another, which the general path writes): each
   * block is then 2 or 4 bytes, held as one integer, big end first, beside its length. Two blocks
   * compare as their integers, then their lengths: the zeros that pad a shorter block make it
   * equal to the longer only when it is the longer's prefix, which the byte order puts first.
   */
  protected writeOneKeyBlocks(s: Int32Array, b: Uint8Array, at: number, symmetric: boolean): number {
    const n = this.nw;
    const packed = this.packed;
    const lengths = this.blockLengths;
    for (let w = 0; w < n; w++) {
      // The worker's status, and its copy of the one key right after it (copyAt(w, 0)).
      const c = this.workerAt(w);
      let x = (((s[c] as number) | handoffMarks(s, w)) << 24) | (referenceMarks(s, GLOBALS, w) << 16);
      if (s[c + HAS] !== 0) {
        const cursor = s[c + CURSOR] as number;
        const epoch = s[c + COPY_EPOCH] as number;
        if (cursor >= 0x80 || epoch >= 0x80) return -1;
        x |= ((COPY | (s[c + FROZEN_COPY] !== 0 ? FROZEN : 0)) << 16) | (cursor << 8) | epoch;
        lengths[w] = 4;
      } else lengths[w] = 2;
      packed[w] = x;
    }
    const order = this.order;
    for (let i = 0; i < n; i++) order[i] = i;
    if (symmetric) {
      for (let i = 1; i < n; i++) {
        const v = order[i] as number;
        const pv = packed[v] as number;
        const lv = lengths[v] as number;
        let j = i - 1;
        for (; j >= 0; j--) {
          const u = order[j] as number;
          const pu = packed[u] as number;
          if (pu < pv || (pu === pv && (lengths[u] as number) <= lv)) break;
          order[j + 1] = u;
        }
        order[j + 1] = v;
      }
    }
    let q = at;
    for (let r = 0; r < n; r++) {
      const w = order[r] as number;
      const x = packed[w] as number;
      b[q++] = x >>> 24;
      b[q++] = (x >>> 16) & 0xff;
      if (lengths[w] === 4) {
        b[q++] = (x >>> 8) & 0xff;
        b[q++] = x & 0xff;
      }
    }
    return q;
  }
}

/** Worker `w`'s marks as the source or destination of the handoff in flight (the first byte of its block, codec.ts). */
function handoffMarks(s: Int32Array, w: number): number {
  if (s[H] === 0) return 0;
  return (s[H_SRC] === w ? HANDOFF_SRC : 0) | (s[H_DST] === w ? HANDOFF_DST : 0);
}

/**
 * Worker `w`'s marks for the key whose fields start at `key` (its copy's byte of the block,
 * codec.ts): the key's owner, the destination of its last install, the source of its last release.
 */
function referenceMarks(s: Int32Array, key: number, w: number): number {
  return (
    (s[key + OWNER_OF] === w ? OWNER : 0) |
    (s[key + INSTALL_EPOCH] !== 0 && s[key + INSTALL_TO] === w ? INSTALL_DST : 0) |
    (s[key + RELEASE_EPOCH] !== 0 && s[key + RELEASE_FROM] === w ? RELEASE_SRC : 0)
  );
}

/**
 * Orders two workers' blocks, `a` and `b`, held at `i * stride` in `blocks` with their lengths in
 * `lengths`: by their bytes, a prefix first. The order the symmetric encoding writes them in (SPEC §6),
 * shared by the codec and the successors on bytes so that both write the same bytes.
 */
export function compareBlocks(blocks: Uint8Array, lengths: Int32Array, stride: number, a: number, b: number): number {
  const la = lengths[a] as number;
  const lb = lengths[b] as number;
  const x = a * stride;
  const y = b * stride;
  const n = Math.min(la, lb);
  for (let i = 0; i < n; i++) {
    const d = (blocks[x + i] as number) - (blocks[y + i] as number);
    if (d !== 0) return d;
  }
  return la - lb;
}

function writeVarint(b: Uint8Array, at: number, x: number): number {
  let p = at;
  let v = x;
  while (v >= 0x80) {
    b[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  b[p++] = v;
  return p;
}
