// One line for people per cluster action: vocabulary, not semantics, so the
// model, the implementation and the harness all describe actions alike.
import { printable } from './errors.ts';
import type { ClusterAction } from './types.gen.ts';

/** A name (key, id, worker) on one line: every character that is not plainly printable escaped (a line break in a key, J1). */
const n = (name: string): string => printable(name, Number.POSITIVE_INFINITY);

/** `freeze k1 -> w2`, `record insert k1/L/a ts=1 [1,2]`, ... */
export function describeClusterAction(a: ClusterAction): string {
  switch (a.type) {
    case 'record': {
      const r = a.record;
      return r.kind === 'watermark'
        ? `record watermark ${n(r.side)}=${r.wm}`
        : `record ${r.kind} ${n(r.key)}/${n(r.side)}/${n(r.id)} ts=${r.ts} [${r.start},${r.end}]`;
    }
    case 'process':
      return `process ${n(a.worker)} ${n(a.key)}`;
    case 'freeze':
      return `freeze ${n(a.key)} -> ${n(a.to)}`;
    case 'commit':
    case 'failover': {
      const head = a.type === 'commit' ? `commit ${n(a.key)}` : `failover ${n(a.key)} -> ${n(a.to)}`;
      return a.crashAfterFence ? `${head} (coordinator crashes after raising the fence)` : head;
    }
    case 'checkpoint':
      return `checkpoint ${n(a.worker)} ${n(a.key)}`;
    case 'crash':
    case 'restart':
      return `${a.type} ${n(a.node)}`;
    case 'pause':
    case 'resume':
      return `${a.type} ${n(a.worker)}`;
    default:
      return `${a.type} ${n(a.key)}`;
  }
}
