// One line for people per cluster action: vocabulary, not semantics, so the
// model, the implementation and the harness all describe actions alike.
import type { ClusterAction } from './types.gen.ts';

/** `freeze k1 -> w2`, `record insert k1/L/a ts=1 [1,2]`, ... */
export function describeClusterAction(a: ClusterAction): string {
  switch (a.type) {
    case 'record': {
      const r = a.record;
      return r.kind === 'watermark'
        ? `record watermark ${r.side}=${r.wm}`
        : `record ${r.kind} ${r.key}/${r.side}/${r.id} ts=${r.ts} [${r.start},${r.end}]`;
    }
    case 'process':
      return `process ${a.worker} ${a.key}`;
    case 'freeze':
      return `freeze ${a.key} -> ${a.to}`;
    case 'commit':
    case 'failover': {
      const head = a.type === 'commit' ? `commit ${a.key}` : `failover ${a.key} -> ${a.to}`;
      return a.crashAfterFence ? `${head} (coordinator crashes after raising the fence)` : head;
    }
    case 'checkpoint':
      return `checkpoint ${a.worker} ${a.key}`;
    case 'crash':
    case 'restart':
      return `${a.type} ${a.node}`;
    case 'pause':
    case 'resume':
      return `${a.type} ${a.worker}`;
    default:
      return `${a.type} ${a.key}`;
  }
}
