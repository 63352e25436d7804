// The interval join as a differential dataflow in d2ts (@electric-sql/d2ts):
// the L and R rows keyed by their join key, an inner join on the key, a
// filter on interval overlap. Each batch is one version of the dataflow;
// its output is the multiset of match changes at that version, read as
// d2ts gives it (not consolidated).
import { D2, MessageType, MultiSet, filter, innerJoin, map, output, type RootStreamBuilder } from '@electric-sql/d2ts';
import type { RowRecord } from '../../index.ts';
import type { IncrementalJoin, MatchDiff, Overlap, RowChange } from './engine.ts';

/** A row as the dataflow holds it: its content (J2), built in one field order, so that a retraction's row equals its insert's. */
interface Row {
  readonly key: string;
  readonly side: string;
  readonly id: string;
  readonly ts: number;
  readonly start: number;
  readonly end: number;
}
type Keyed = [key: string, row: Row];
const rowOf = ({ key, side, id, ts, start, end }: RowRecord): Row => ({ key, side, id, ts, start, end });

const overlaps: Record<Overlap, (l: Row, r: Row) => boolean> = {
  inclusive: (l, r) => l.start <= r.end && r.start <= l.end,
  strict: (l, r) => l.start < r.end && r.start <= l.end,
};

export function d2tsJoin(overlap: Overlap = 'inclusive'): IncrementalJoin {
  const graph = new D2({ initialFrontier: 0 });
  const inputs: Record<'L' | 'R', RootStreamBuilder<Keyed>> = { L: graph.newInput<Keyed>(), R: graph.newInput<Keyed>() };
  const emitted: MatchDiff[] = [];
  const overlapping = overlaps[overlap];
  inputs.L.pipe(
    innerJoin(inputs.R),
    filter(([, [l, r]]) => overlapping(l, r)),
    map(([key, [l, r]]) => [key, l.id, r.id] as const),
    output((message) => {
      if (message.type !== MessageType.DATA) return;
      for (const [[key, left, right], diff] of message.data.collection.getInner()) emitted.push({ key, left, right, diff });
    }),
  );
  graph.finalize();
  let version = 0;
  return {
    batch(changes: readonly RowChange[]) {
      for (const side of ['L', 'R'] as const) {
        const mine = changes.filter((c) => c.row.side === side).map((c): [Keyed, number] => [[c.row.key, rowOf(c.row)], c.diff]);
        if (mine.length > 0) inputs[side].sendData(version, new MultiSet(mine));
      }
      version++;
      inputs.L.sendFrontier(version);
      inputs.R.sendFrontier(version);
      graph.run();
      return emitted.splice(0);
    },
  };
}
