// The hostile-system table: runs the harness against every hostile system
// under test (conformance/testdata/hostileCases.ts), as the suite does, and
// prints one Markdown row each: the verdict, the reason, the time from the
// misbehaviour to the verdict, the time from the verdict to the harness's
// exit, and what was left behind. Times are wall clock on this machine:
// measure on a quiet one.
//
// Usage: npx tsx scripts/hostileTable.ts [--seed N] [--parallel N]
import { parseArgs } from 'node:util';
import { hostileCases, runCase, type CaseRun, type HostileCase } from '../conformance/testdata/hostileCases.ts';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, parallel: { type: 'string', default: '3' } } });
const seed = Number(values.seed);
const parallel = Math.max(1, Number(values.parallel));
const cases = hostileCases(seed);
process.stderr.write(`hostile table: ${cases.length} systems, seed ${seed}, ${parallel} at a time\n`);

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const cell = (text: string): string => text.replace(/\|/g, '\\|');

const rows: (readonly [HostileCase, CaseRun])[] = [];
let next = 0;
async function worker(): Promise<void> {
  for (let i = next++; i < cases.length; i = next++) {
    const c = cases[i] as HostileCase;
    rows[i] = [c, await runCase(c)];
    process.stderr.write(`  ${c.does}: done\n`);
  }
}
await Promise.all(Array.from({ length: parallel }, worker));

console.log('| the system | --timeout | verdict (exit) | reason | misbehaviour → verdict | verdict → exit | left behind |');
console.log('|---|---|---|---|---|---|---|');
for (const [c, r] of rows) {
  const reason = r.reason.length > 70 ? `${r.reason.slice(0, 70)}…` : r.reason;
  const toVerdict = r.misbehavedAt === undefined ? '-' : seconds(r.verdictAt - r.misbehavedAt);
  const left = [...r.processesLeft.map((p) => `process ${p}`), ...r.filesLeft].join(', ') || 'nothing';
  console.log(
    `| ${cell(c.does)} | ${seconds(c.timeoutMs)} | ${r.report.verdict} (${r.code ?? r.signal}) ` +
      `| ${cell(reason)} | ${toVerdict} | ${seconds(r.exitAt - r.verdictAt)} | ${cell(left)} |`,
  );
}
