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

export default {
  ...k1,
  name: 'cluster k1, commit without the fence',
  next(state, action) {
    const after = k1.next(state, action);
    return action.kind.startsWith('commit') ? commitWithoutFence(state, after) : after;
  },
};
