// The operator of one partition (SPEC §1-§3), the textbook way: per key, the
// rows of each side by id, each row linked to its active matches, and eviction
// as soon as an accepted watermark passes a row's horizon (J8). A checkpoint
// is a plain snapshot of that structure (snapshot / Operator.restore).

import { bug } from './bugs.js';

export const TIME_LIMIT = 2 ** 50;
const SIDES = ['L', 'R'];

const escapePart = (text) => text.replaceAll('%', '%25').replaceAll('/', '%2F');

/** J3: injective because escapePart never yields a '/'. */
export const matchIdOf = (key, left, right) => `${escapePart(key)}/${escapePart(left)}/${escapePart(right)}`;

const opposite = (side) => (side === 'L' ? 'R' : 'L');
const outOfRange = (time) => time < -TIME_LIMIT || time > TIME_LIMIT;

/** J1's checks in their order; null when valid. */
export function rejectReason(record, maxLength) {
  if (record.kind === 'watermark') {
    if (!SIDES.includes(record.side)) return 'bad_side';
    return outOfRange(record.wm) ? 'out_of_range' : null;
  }
  if (record.key === '') return 'empty_key';
  if (record.id === '') return 'empty_id';
  if (!SIDES.includes(record.side)) return 'bad_side';
  if ([record.ts, record.start, record.end].some(outOfRange)) return 'out_of_range';
  if (record.ts < record.start) return 'ts_before_start';
  if (record.ts > record.end) return 'ts_after_end';
  if (record.end - record.start > maxLength) return 'too_long';
  return null;
}

class Row {
  constructor(side, id, ts, start, end, live) {
    Object.assign(this, { side, id, ts, start, end, live });
    this.matches = new Set();
    this.evicted = false;
  }
}

class Partition {
  constructor() {
    this.rows = { L: new Map(), R: new Map() };
    this.matches = new Set();
  }
}

const change = (op, key, match) => ({
  op,
  match: matchIdOf(key, match.left.id, match.right.id),
  key,
  left: match.left.id,
  right: match.right.id,
});

export class Operator {
  constructor(lateness, maxLength) {
    this.lateness = lateness;
    this.maxLength = maxLength;
    this.wm = { L: null, R: null };
    this.partitions = new Map();
  }

  globalWatermark() {
    return this.wm.L === null || this.wm.R === null ? null : Math.min(this.wm.L, this.wm.R);
  }

  horizon(row) {
    return row.end + this.lateness + this.maxLength;
  }

  partition(key) {
    let found = this.partitions.get(key);
    if (found === undefined) {
      found = new Partition();
      this.partitions.set(key, found);
    }
    return found;
  }

  /** J7: one record in, its outcome and changes out. */
  apply(record) {
    const reason = rejectReason(record, this.maxLength);
    if (reason !== null) return { outcome: { code: 'rejected', reason }, changes: [] };
    if (record.kind === 'watermark') return this.watermark(record.side, record.wm);
    const gw = this.globalWatermark();
    const late =
      record.kind === 'insert'
        ? gw !== null && record.ts < gw - this.lateness
        : gw !== null && gw > record.end + this.lateness + this.maxLength;
    if (late) return { outcome: { code: 'late' }, changes: [] };
    const part = this.partition(record.key);
    const bound = part.rows[record.side].get(record.id);
    if (bound !== undefined) {
      if (bound.ts !== record.ts || bound.start !== record.start || bound.end !== record.end) {
        return { outcome: { code: 'rejected', reason: 'conflict' }, changes: [] };
      }
      if (record.kind === 'insert' || !bound.live) return { outcome: { code: 'duplicate' }, changes: [] };
      return { outcome: { code: 'accepted' }, changes: this.retractRow(record.key, part, bound) };
    }
    const row = new Row(record.side, record.id, record.ts, record.start, record.end, record.kind === 'insert');
    part.rows[record.side].set(record.id, row);
    // J6: a retract with no binding leaves a tombstone, so its insert is a duplicate when it comes.
    return { outcome: { code: 'accepted' }, changes: row.live ? this.matchRow(record.key, part, row) : [] };
  }

  matchRow(key, part, row) {
    const changes = [];
    for (const other of part.rows[opposite(row.side)].values()) {
      if (!other.live || row.start > other.end || other.start > row.end) continue;
      const match = row.side === 'L' ? { left: row, right: other } : { left: other, right: row };
      row.matches.add(match);
      other.matches.add(match);
      part.matches.add(match);
      changes.push(change('insert', key, match));
    }
    return changes;
  }

  retractRow(key, part, row) {
    row.live = false;
    const changes = [];
    for (const match of row.matches) {
      const partner = match.left === row ? match.right : match.left;
      partner.matches.delete(match);
      part.matches.delete(match);
      changes.push(change('retract', key, match));
    }
    row.matches.clear();
    return changes;
  }

  watermark(side, value) {
    if (this.wm[side] !== null && value <= this.wm[side]) return { outcome: { code: 'stale' }, changes: [] };
    this.wm[side] = value;
    this.evict();
    return { outcome: { code: 'accepted' }, changes: [] };
  }

  /** J8: rows past their horizon go; a match goes with its last endpoint. */
  evict() {
    const gw = this.globalWatermark();
    if (gw === null) return;
    for (const part of this.partitions.values()) {
      for (const side of SIDES) {
        for (const row of part.rows[side].values()) {
          const past = bug('horizon-early') ? gw >= this.horizon(row) : gw > this.horizon(row);
          if (!past) continue;
          part.rows[side].delete(row.id);
          row.evicted = true;
          for (const match of row.matches) {
            const partner = match.left === row ? match.right : match.left;
            if (partner.evicted) part.matches.delete(match);
          }
        }
      }
    }
  }

  /** §3: live rows, tombstones and retained active matches, of one key or of all. */
  retained(key) {
    const counts = { live: 0, tombstones: 0, matches: 0 };
    for (const [partKey, part] of this.partitions) {
      if (key !== undefined && partKey !== key) continue;
      for (const side of SIDES) {
        for (const row of part.rows[side].values()) {
          if (row.live) counts.live += 1;
          else counts.tombstones += 1;
        }
      }
      counts.matches += part.matches.size;
    }
    return counts;
  }

  snapshot() {
    const partitions = [];
    for (const [key, part] of this.partitions) {
      const rows = [];
      for (const side of SIDES) for (const row of part.rows[side].values()) rows.push([side, row.id, row.ts, row.start, row.end, row.live]);
      const matches = [];
      for (const match of part.matches) {
        matches.push([match.left.id, match.right.id, match.left.evicted, match.right.evicted, match.left.end, match.right.end]);
      }
      partitions.push([key, rows, matches]);
    }
    const wm = bug('snapshot-without-watermarks') ? { L: null, R: null } : { ...this.wm };
    return { lateness: this.lateness, maxLength: this.maxLength, wm, partitions };
  }

  static restore(snapshot) {
    const operator = new Operator(snapshot.lateness, snapshot.maxLength);
    operator.wm = { ...snapshot.wm };
    for (const [key, rows, matches] of snapshot.partitions) {
      const part = operator.partition(key);
      for (const [side, id, ts, start, end, live] of rows) part.rows[side].set(id, new Row(side, id, ts, start, end, live));
      for (const [leftId, rightId, leftEvicted, rightEvicted, leftEnd, rightEnd] of matches) {
        const endpoint = (side, id, evicted, end) => {
          if (!evicted) return part.rows[side].get(id);
          const gone = new Row(side, id, end, end, end, true);
          gone.evicted = true;
          return gone;
        };
        const match = { left: endpoint('L', leftId, leftEvicted, leftEnd), right: endpoint('R', rightId, rightEvicted, rightEnd) };
        match.left.matches.add(match);
        match.right.matches.add(match);
        part.matches.add(match);
      }
    }
    return operator;
  }
}
