// The reference model, in-process, made to die on a retraction as a process
// does (lockstep/deaths.test.ts, job/randomPart.test.ts): the replies before
// the death kept, the rest cut (SutUnavailable.answered), every session
// after it refused until `revive`.
import { inProcessSystem } from '../adapters/inProcess.ts';
import { modelSut } from '../sut/modelSut.ts';
import { SutUnavailable, type SystemUnderTest } from '../sut/sut.ts';

export const DEAD = 'dead: the process exited with code 1 with requests outstanding';

/**
 * How the system dies on a retract, run by run: `at-retract` at the retract
 * (its reply never comes), `after-reply` once the retract is answered but
 * before the inspect after it, `earlier` one step before the retract,
 * `lives` not at all; `hangs` stops answering there (not a death).
 */
export type Fate = 'at-retract' | 'after-reply' | 'earlier' | 'lives' | 'hangs';

/** The model, dying as `fates` says at its Nth session (the last fate repeats); `revive` counts, absent if `revivable` is false. */
export function dyingSystem(fates: readonly Fate[], revivable = true): SystemUnderTest & { sessions: number; revived: number } {
  const inner = inProcessSystem(modelSut);
  let alive = true;
  const fateOf = (session: number): Fate => fates[Math.min(session, fates.length - 1)] as Fate;
  const system: SystemUnderTest & { sessions: number; revived: number } = {
    ...inner,
    sessions: 0,
    revived: 0,
    async openOperator(config) {
      if (!alive) throw new SutUnavailable(DEAD);
      const fate = fateOf(system.sessions++);
      const session = await inner.openOperator(config);
      return {
        ...session,
        async records(records) {
          // Dead from the moment the requests are written, as a process is to whatever is sent after them.
          const at = records.findIndex((r) => r.kind === 'retract');
          const cut = at < 0 || fate === 'lives' ? -1 : fate === 'earlier' ? at - 1 : at;
          if (cut >= 0) alive = fate === 'hangs';
          const replies = await session.records(records);
          if (cut < 0) return replies;
          const reason = fate === 'hangs' ? 'hung: no reply to request 9 (record) within 10000 ms' : DEAD;
          throw new SutUnavailable(reason, ['fatal: the index is inconsistent'], { level: 'operator', records: replies.slice(0, cut) });
        },
      };
    },
    async openCluster(config, level) {
      if (!alive) throw new SutUnavailable(DEAD);
      const fate = fateOf(system.sessions++);
      const session = await inner.openCluster(config, level);
      return {
        ...session,
        async steps(actions, observed) {
          const at = actions.findIndex((a) => a.type === 'record' && a.record.kind === 'retract');
          if (at >= 0 && fate !== 'lives') alive = fate === 'hangs';
          const replies = await session.steps(actions, observed);
          if (at < 0 || fate === 'lives') return replies;
          const reason = fate === 'hangs' ? 'hung: no reply to request 9 (record) within 10000 ms' : DEAD;
          const kept =
            fate === 'after-reply'
              ? [...replies.slice(0, at), { reply: (replies[at] as (typeof replies)[number]).reply }]
              : replies.slice(0, fate === 'earlier' ? at - 1 : at);
          throw new SutUnavailable(reason, ['fatal: the index is inconsistent'], { level: 'cluster', steps: kept });
        },
      };
    },
    ...(revivable
      ? {
          async revive() {
            if (alive) return false;
            alive = true;
            system.revived++;
            return true;
          },
        }
      : {}),
  };
  return system;
}
