// Loaded (`node --import`) into the `serve --data` processes that the
// mutation run's kill-mode killing test starts (kill.mutation.ts), during
// Stryker's initial run only: it writes the Stryker coverage of this process
// (which mutants its instrumented code reached) to a file of its own in the
// directory STREAMJOIN_MUTATION_COVERAGE_DIR names, so the test can count it
// as its own. Stryker records coverage in the process that runs the test;
// without this a mutant reached only in a child would count as "no
// coverage" and never be run.
//
// The process is killed with SIGKILL (no exit handler runs), so the file is
// rewritten before every reply the process writes, and at a normal exit:
// what ran after the last reply of a killed incarnation is lost, and is
// reached again by the run that kills one write point later.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.STREAMJOIN_MUTATION_COVERAGE_DIR;

/** Stryker's namespace in this process (its instrumented code makes it). */
interface StrykerNamespace {
  readonly mutantCoverage?: { readonly static: Record<string, number> };
}

const save = (): void => {
  const ns = (globalThis as { __stryker__?: StrykerNamespace }).__stryker__;
  if (dir === undefined || ns?.mutantCoverage === undefined) return;
  writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(ns.mutantCoverage.static));
};

if (dir !== undefined) {
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  process.stdout.write = ((...args: unknown[]): boolean => {
    save();
    return write(...args);
  }) as typeof process.stdout.write;
  process.on('exit', save);
}
