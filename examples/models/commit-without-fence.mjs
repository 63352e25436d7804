// A variant of the handoff protocol, for `streamjoin check --model`: the
// cluster model of the `ci` preset's key k1, with one step changed. Here the
// coordinator's commit writes the new owner but does not raise the sink's
// fence (SPEC C7 raises it first). docs/check.md, "Your own model", walks
// through checking it:
//
//   npx streamjoin check --model examples/models/commit-without-fence.mjs
import { presetNamed, resolveBounds } from 'streamjoin';

const ci = presetNamed('ci');
const bounds = resolveBounds(ci, {}); // the preset's default bounds; override some here: { records: 4 }
const k1 = ci.parts(bounds, undefined)[0].model.use((model) => model);

/** The changed step: after a commit, the sink's fence is what it was before. */
function commitWithoutFence(before, after) {
  return { ...after, cluster: { ...after.cluster, sink: { ...after.cluster.sink, fence: before.cluster.sink.fence } } };
}

/** What the viewer shows of a state: the cluster as the nodes observe it (SPEC §7). */
const seen = (state) => k1.stateToJson(state).observation;

/**
 * How the counterexample viewer (.md, .html, ITF notes) draws a step: one
 * lane per node, the messages between them, and the sink's fence, which the
 * changed step leaves where it was. Optional: without it the viewer shows
 * each step's action and the fields of the state it changed.
 */
const rendering = {
  lanes: ['log', 'coordinator', 'w1', 'w2', 'w3', 'sink'],
  step(before, explored, after) {
    const action = explored.action; // the model's action wraps the cluster action (SPEC §7)
    const [b, a] = [seen(before), seen(after)];
    const key = action.key;
    switch (action.type) {
      case 'record':
        return { rows: [{ lane: 'log', text: `append ${action.record.kind} ${action.record.key}/${action.record.side}/${action.record.id}` }] };
      case 'process': {
        const epoch = a.workers[action.worker]?.keys[key]?.epoch;
        const fence = b.sink.fence[key] ?? 0;
        const rows = [{ lane: 'log', to: action.worker, text: `next record of ${key}` }];
        if (a.sink.applied > b.sink.applied) rows.push({ lane: action.worker, to: 'sink', text: `write ${key} at epoch ${epoch} (fence ${fence}): applied` });
        if (a.sink.fenced > b.sink.fenced) rows.push({ lane: action.worker, to: 'sink', text: `write ${key} at epoch ${epoch} (fence ${fence})`, refused: true });
        return { rows };
      }
      case 'freeze':
      case 'persist':
      case 'install': {
        const h = a.coordinator.handoff ?? b.coordinator.handoff;
        return { rows: [{ lane: 'coordinator', to: action.type === 'install' ? h.dst : h.src, text: `${action.type} ${key}` }] };
      }
      case 'commit': {
        const { owner, epoch } = a.coordinator.keys[key];
        return {
          rows: [
            { lane: 'coordinator', to: owner, text: `commit ${key}: owner ${owner}, epoch ${epoch}` },
            { lane: 'sink', text: `fence of ${key} stays ${a.sink.fence[key] ?? 0} (C7 would raise it to ${epoch})` },
          ],
        };
      }
      case 'crash':
      case 'restart':
      case 'pause':
        return { rows: [{ lane: action.node, text: action.type }] };
      default:
        return { rows: [{ lane: 'coordinator', text: k1.describeAction(explored) }] };
    }
  },
};

export default {
  ...k1,
  name: 'cluster k1, commit without the fence',
  next(state, action) {
    const after = k1.next(state, action);
    return action.kind.startsWith('commit') ? commitWithoutFence(state, after) : after;
  },
  rendering,
};
