// Unambiguous text for records, actions, outcomes, changes and events, as
// every counterexample rendering (views/view.ts and the files it feeds) writes them.
import { describeClusterAction } from '../../spec/index.ts';
import type { Change, ClusterAction, ClusterEvent, LogRecord, Outcome } from '../../spec/index.ts';

/** A key, id or side as written in reports: JSON-quoted, so a `/` or a space in it cannot be misread. */
const quoted = (s: string): string => JSON.stringify(s);
const sideText = (s: string): string => (s === 'L' || s === 'R' ? s : quoted(s));

/** `ins "k1" L "a" 1[1,2]`, `ret …`, `wm L=9`: ids and keys JSON-quoted (an id may hold `/`). */
export function recordText(r: LogRecord): string {
  if (r.kind === 'watermark') return `wm ${sideText(r.side)}=${r.wm}`;
  return `${r.kind === 'insert' ? 'ins' : 'ret'} ${quoted(r.key)} ${sideText(r.side)} ${quoted(r.id)} ${r.ts}[${r.start},${r.end}]`;
}

/** A cluster action for people, with a record's ids quoted. */
export function actionText(a: ClusterAction): string {
  return a.type === 'record' ? `record ${recordText(a.record)}` : describeClusterAction(a);
}

export function outcomeText(o: Outcome): string {
  return o.code === 'rejected' ? `rejected:${o.reason}` : o.code;
}

/** Match ids are unambiguous as they are (J3 escapes `/` and `%`). */
export function changesText(cs: readonly Change[]): string {
  return cs.map((c) => `${c.op === 'insert' ? '+' : '-'}${c.match}`).join(' ');
}

/** One event on one line (C12). */
export function eventText(e: ClusterEvent): string {
  switch (e.type) {
    case 'appended':
      return `appended #${e.index}`;
    case 'rejected':
      return `rejected ${outcomeText(e.outcome)}`;
    case 'processed':
      return `processed ${e.worker} ${e.key} #${e.index} e${e.epoch} ${outcomeText(e.outcome)}${e.changes.length ? ` ${changesText(e.changes)}` : ''}${e.fenced ? ' FENCED' : ''}`;
    case 'dropped':
      return `dropped ${e.worker} ${e.key} (${e.reason})`;
    case 'refused':
      return `refused ${e.worker} ${e.key} (${e.reason})`;
    case 'restored':
      return `restored ${e.worker} ${e.key} @${e.cursor} e${e.epoch}`;
  }
}
