// J9, the input contract, checked in one pass in time linear in the log: per
// identity, the end of the content that bound it (J2: the first content
// wins, and nothing rebinds an identity) tells when its binding passes its
// horizon (J8). A record breaks the contract iff it passes validity and
// lateness (J7 checks 1 and 2) while its identity's binding is past its
// horizon. The brute-force definition is `stepOracle` (oracle.ts), which
// rebuilds the relation at every step; `contract.test.ts` shows the two agree.
import type { JoinConfig, LogRecord, Side, Watermarks } from '../../spec/index.ts';
import { contentOf, globalWatermark, horizonOf, isLateInsert, isLateRetract, isRetained, validityOf } from './join.ts';

/** A record that breaks J9: why, and the position of the record that bound the identity. */
export interface ContractViolation {
  /** Why the record breaks J9. */
  readonly message: string;
  /** The position (as counted by the caller) of the record whose content bound the identity. */
  readonly boundAt: number;
}

/** Reads a log one record at a time; `check` says how a record breaks J9, or undefined. */
export interface ContractChecker {
  /** `at` is the record's position (a step index, a line number), remembered for the witness. */
  check(record: LogRecord, at: number): ContractViolation | undefined;
}

/** A fresh checker for `config`. It remembers two numbers per identity ever bound. */
export function contractChecker(config: JoinConfig): ContractChecker {
  const wm: { L: Watermarks['L']; R: Watermarks['R'] } = { L: null, R: null };
  /** Identity → the end of its binding's content (J2: fixed once bound) and where it was bound. */
  const bindings = new Map<string, { readonly end: number; readonly at: number }>();
  return {
    check(record, at) {
      if (validityOf(record, config) !== undefined) return undefined; // J7 check 1: rejected, binds nothing
      if (record.kind === 'watermark') {
        // J4: an accepted watermark raises its side; a stale one changes nothing.
        const side = record.side as Side;
        const current = wm[side];
        if (current === null || record.wm > current) wm[side] = record.wm;
        return undefined;
      }
      const row = contentOf(record);
      const gw = globalWatermark(wm);
      const late = record.kind === 'insert' ? isLateInsert(row, gw, config) : isLateRetract(row, gw, config);
      if (late) return undefined; // J7 check 2: late, binds nothing
      const identity = JSON.stringify([row.key, row.side, row.id]);
      const binding = bindings.get(identity);
      if (binding === undefined) {
        // J7 check 5: the identity is bound now, with this content.
        bindings.set(identity, { end: row.end, at });
        return undefined;
      }
      if (isRetained(binding.end, gw, config)) return undefined; // J7 checks 3-5 against a retained binding: in contract
      return {
        message:
          `identity (${row.key}, ${row.side}, ${row.id}) is reused after its row passed its horizon ` +
          `${binding.end} + L + D = ${horizonOf(binding.end, config)} < gw ${String(gw)} (J9)`,
        boundAt: binding.at,
      };
    },
  };
}

/** J9: the index of the first record that breaks the input contract, if any, in one linear pass. */
export function firstContractViolation(
  config: JoinConfig,
  records: Iterable<LogRecord>,
): { index: number; message: string; boundAt: number } | undefined {
  const checker = contractChecker(config);
  let index = 0;
  for (const record of records) {
    const violation = checker.check(record, index);
    if (violation !== undefined) return { index, ...violation };
    index++;
  }
  return undefined;
}
