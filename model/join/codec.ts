// The join model's state as bytes and back (`StateCodec`, for the
// explorer's compact frontier and its fingerprints). The identifying bytes
// say what the model's encoding says (joinModel.ts, `encodeUnder`): the
// length, the last outcome, whether a mismatch was recorded, both states'
// watermarks, and the rows and matches as sets (their order is history, not
// state, so they are written sorted); a state outside the contract (J9) is
// one state. The text of a mismatch identifies nothing and follows.
import type { ByteReader, ByteWriter, StateCodec } from '../explorer/index.ts';
import type { JoinState, MatchState, RowState } from './join.ts';
import type { JoinModelState } from './joinModelState.ts';
import type { Side } from '../../spec/index.ts';

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compareRows(a: RowState, b: RowState): number {
  return (
    compareText(a.key, b.key) ||
    compareText(a.side, b.side) ||
    compareText(a.id, b.id) ||
    a.ts - b.ts ||
    a.start - b.start ||
    a.end - b.end ||
    Number(a.live) - Number(b.live)
  );
}

function compareMatches(a: MatchState, b: MatchState): number {
  return compareText(a.key, b.key) || compareText(a.left, b.left) || compareText(a.right, b.right);
}

function writeWatermark(out: ByteWriter, w: number | null): void {
  if (w === null) out.u8(0);
  else out.u8(1).int(w);
}

function readWatermark(input: ByteReader): number | null {
  return input.u8() === 0 ? null : input.int();
}

function writeRows(out: ByteWriter, rows: readonly RowState[]): void {
  out.uint(rows.length);
  for (const r of [...rows].sort(compareRows)) {
    out
      .str(r.key)
      .u8(r.side === 'L' ? 0 : 1)
      .str(r.id)
      .int(r.ts)
      .int(r.start)
      .int(r.end)
      .u8(r.live ? 1 : 0);
  }
}

function readRows(input: ByteReader): RowState[] {
  const rows: RowState[] = [];
  for (let n = input.uint(); n > 0; n--) {
    const key = input.str();
    const side: Side = input.u8() === 0 ? 'L' : 'R';
    const id = input.str();
    const ts = input.int();
    const start = input.int();
    const end = input.int();
    rows.push({ key, side, id, ts, start, end, live: input.u8() === 1 });
  }
  return rows;
}

/**
 * The join model's codec. With `symmetric`, it writes the state's canonical
 * member under renaming keys and ids, as `representative` picks it.
 */
export function joinCodec(representative: ((s: JoinModelState) => JoinModelState) | undefined): StateCodec<JoinModelState> {
  const write = (s: JoinModelState, out: ByteWriter, symmetric: boolean): void => {
    const t = symmetric && representative ? representative(s) : s;
    out.u8(t.outOfContract ? 0 : 1);
    if (!t.outOfContract) {
      out
        .uint(t.length)
        .str(t.last)
        .u8(t.mismatch === undefined ? 0 : 1);
      writeWatermark(out, t.op.wm.L);
      writeWatermark(out, t.op.wm.R);
      writeRows(out, t.op.rows);
      out.uint(t.op.matches.length);
      for (const m of [...t.op.matches].sort(compareMatches)) out.str(m.key).str(m.left).str(m.right);
      writeWatermark(out, t.oracle.wm.L);
      writeWatermark(out, t.oracle.wm.R);
      writeRows(out, t.oracle.rows);
    }
    out.endKey();
    // A state outside the contract is not expanded, but reads back whole all the same.
    if (t.outOfContract) {
      out.uint(t.length).str(t.last);
      writeWatermark(out, t.op.wm.L);
      writeWatermark(out, t.op.wm.R);
      writeRows(out, t.op.rows);
      out.uint(t.op.matches.length);
      for (const m of [...t.op.matches].sort(compareMatches)) out.str(m.key).str(m.left).str(m.right);
      writeWatermark(out, t.oracle.wm.L);
      writeWatermark(out, t.oracle.wm.R);
      writeRows(out, t.oracle.rows);
    }
    out.u8(t.mismatch === undefined ? 0 : 1);
    if (t.mismatch !== undefined) out.str(t.mismatch);
  };
  const read = (input: ByteReader): JoinModelState => {
    const inContract = input.u8() === 1;
    const length = input.uint();
    const last = input.str();
    if (inContract) input.u8();
    const opL = readWatermark(input);
    const opR = readWatermark(input);
    const opRows = readRows(input);
    const matches: MatchState[] = [];
    for (let n = input.uint(); n > 0; n--) matches.push({ key: input.str(), left: input.str(), right: input.str() });
    const oracleL = readWatermark(input);
    const oracleR = readWatermark(input);
    const oracleRows = readRows(input);
    const mismatch = input.u8() === 1 ? input.str() : undefined;
    const op: JoinState = { wm: { L: opL, R: opR }, rows: opRows, matches };
    return {
      op,
      oracle: { wm: { L: oracleL, R: oracleR }, rows: oracleRows },
      length,
      last,
      ...(mismatch !== undefined ? { mismatch } : {}),
      outOfContract: !inContract,
    };
  };
  return { symmetric: representative !== undefined, write, read };
}
