// The reference model, in-process, made to die on a retraction as a process
// does (lockstep/deaths.test.ts, job/randomPart.test.ts): the replies before
// the death kept, the rest cut (SutUnavailable.answered), and what was sent
// to the dead process after it cut too, until `revive` starts the next.
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

/**
 * When the harness learns of a death: `at-write` as it writes the requests
 * that kill (every session it opens after them is refused), or `late`, once
 * it reads what came back (sessions it opened meanwhile were sent to the
 * dead process: cut before they began, nothing of them answered).
 */
export type Noticed = 'at-write' | 'late';

/**
 * The model, dying as `fates` says at its Nth session (the last fate
 * repeats), in "processes": a death ends the current one, `revive` starts the
 * next (and counts); without `revivable`, no `revive`.
 */
export function dyingSystem(
  fates: readonly Fate[],
  revivable = true,
  noticed: Noticed = 'at-write',
): SystemUnderTest & { sessions: number; revived: number } {
  const inner = inProcessSystem(modelSut);
  let current = 0;
  let dead = -1;
  const fateOf = (session: number): Fate => fates[Math.min(session, fates.length - 1)] as Fate;
  const reasonOf = (fate: Fate): string => (fate === 'hangs' ? 'hung: no reply to request 9 (record) within 10000 ms' : DEAD);
  const refuseIfDead = (): void => {
    if (dead === current && noticed === 'at-write') throw new SutUnavailable(DEAD);
  };
  /** Runs `answer` on the process `mine`: cut before it began if that process died before (or while) it ran. */
  const onProcess = async <T>(mine: number, dies: boolean, answer: () => Promise<T>): Promise<T> => {
    if (dies && noticed === 'at-write') dead = mine;
    const replies = await answer();
    if (dies) dead = mine;
    else if (dead === mine) throw new SutUnavailable(DEAD);
    return replies;
  };
  const system: SystemUnderTest & { sessions: number; revived: number } = {
    ...inner,
    sessions: 0,
    revived: 0,
    async openOperator(config) {
      refuseIfDead();
      const mine = current;
      const fate = fateOf(system.sessions++);
      const session = await inner.openOperator(config);
      return {
        ...session,
        async records(records) {
          const at = records.findIndex((r) => r.kind === 'retract');
          const cut = at < 0 || fate === 'lives' ? -1 : fate === 'earlier' ? at - 1 : at;
          const replies = await onProcess(mine, cut >= 0 && fate !== 'hangs', () => session.records(records));
          if (cut < 0) return replies;
          throw new SutUnavailable(reasonOf(fate), ['fatal: the index is inconsistent'], {
            level: 'operator',
            records: replies.slice(0, cut),
          });
        },
      };
    },
    async openCluster(config, level) {
      refuseIfDead();
      const mine = current;
      const fate = fateOf(system.sessions++);
      const session = await inner.openCluster(config, level);
      return {
        ...session,
        async steps(actions, observed) {
          const at = actions.findIndex((a) => a.type === 'record' && a.record.kind === 'retract');
          const dies = at >= 0 && fate !== 'lives';
          const replies = await onProcess(mine, dies && fate !== 'hangs', () => session.steps(actions, observed));
          if (!dies) return replies;
          const kept =
            fate === 'after-reply'
              ? [...replies.slice(0, at), { reply: (replies[at] as (typeof replies)[number]).reply }]
              : replies.slice(0, fate === 'earlier' ? at - 1 : at);
          throw new SutUnavailable(reasonOf(fate), ['fatal: the index is inconsistent'], { level: 'cluster', steps: kept });
        },
      };
    },
    ...(revivable
      ? {
          async revive() {
            if (dead !== current) return false;
            current++;
            system.revived++;
            return true;
          },
        }
      : {}),
  };
  return system;
}
