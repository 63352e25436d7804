// Events, outcomes and change sets on one line, for summaries, explanations
// and sequence diagrams.
import type { Change, ClusterEvent, Outcome } from '../../spec/index.ts';

/** `accepted`, `rejected:conflict`. */
export function outcomeText(o: Outcome): string {
  return o.code === 'rejected' ? `rejected:${o.reason}` : o.code;
}

/** `+k/a/b -k/c/d`. */
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
