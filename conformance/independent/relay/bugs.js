// Injected bugs, one at a time, named by the environment variable SJ_BUG.
// Each is a one-line slip of the kind a real engineer makes; the standing test
// (conformance/independent/independent.e2e.test.ts) measures which part of the
// harness catches each. An unknown name is refused at start, so a typo never
// runs the correct system under a bug's name.

export const BUGS = new Map([
  ['naive-sink-id', "C9/J3: the sink files a key's matches under 'L:'+left+'|R:'+right"],
  ['horizon-early', 'J8: a row is evicted once gw reaches its horizon, one tick early'],
  ['snapshot-without-watermarks', "C2/C4: a checkpoint's snapshot leaves out the copy's watermarks"],
  ['fenced-writer-keeps-copy', 'C9: a fenced writer is refused but keeps its copy and goes on'],
  ['release-no-epoch-check', "C7: a release drops the source's copy whatever its epoch"],
  ['install-equal-epoch', 'C6: the install epoch check refuses only older epochs, not an equal one'],
  ['restart-fresh', 'C10: a restarted worker recovers its keys empty at cursor 0, not from the checkpoint'],
  ['abort-any-key', 'C5: abort checks that a migration is in flight, not that it is of this key'],
]);

const active = process.env.SJ_BUG ?? '';
if (active !== '' && !BUGS.has(active)) {
  process.stderr.write(`relay: unknown SJ_BUG ${JSON.stringify(active)}; known: ${[...BUGS.keys()].sort().join(', ')}\n`);
  process.exit(3);
}

export const activeBug = active;

export function bug(name) {
  if (!BUGS.has(name)) throw new Error(`no bug named ${name}`);
  return active === name;
}
