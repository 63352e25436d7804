// One option parser, one error style (cli/options.ts): every usage mistake of
// every command is one line `usage: SJ105 ...` (exit 254) in streamjoin's
// words, an unknown option names the nearest valid one, and an option is
// checked the same way whatever the system under test.
import { describe, expect, it } from 'vitest';
import { nearestOption } from './options.ts';
import { runCli } from './testSupport.ts';

/** Runs the CLI and returns its one stderr line, asserting it is one (SJ105, exit 254, no escaped newline). */
async function usageLine(argv: readonly string[]): Promise<string> {
  const r = await runCli(argv);
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(254);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  const line = lines[0] as string;
  expect(line).toMatch(/^usage: SJ105 /);
  expect(line).not.toContain('\\n');
  return line;
}

describe('nearestOption: the valid option a misspelling most likely meant', () => {
  const names = ['write-expected', 'json', 'reporter', 'max-seconds', 'max-states', 'exhaustive', 'examples', 'level', 'log'];
  it('a typo, a swap, a missing or extra letter, the start of a long name', () => {
    expect(nearestOption('write-expectd', names)).toBe('write-expected');
    expect(nearestOption('josn', names)).toBe('json');
    expect(nearestOption('max-second', names)).toBe('max-seconds');
    expect(nearestOption('exhaust', names)).toBe('exhaustive');
    expect(nearestOption('levl', names)).toBe('level');
  });
  it('nothing for a word near none of them', () => {
    expect(nearestOption('frobnicate', names)).toBeUndefined();
    expect(nearestOption('seed', names)).toBeUndefined();
  });
});

describe('every command: usage mistakes are one line with the option, and its nearest valid one', () => {
  const commands: [command: string, misspelt: string, meant: string][] = [
    ['run', '--write-expectd', '--write-expected'],
    ['check', '--max-second', '--max-seconds'],
    ['conform', '--exhaustiv', '--exhaustive'],
    ['replay', '--levle', '--level'],
    ['audit', '--snk', '--sink'],
    ['serve', '--modle', '--model'],
    ['mutants', '--mutnt', '--mutant'],
    ['merge-reports', '--jsn', '--json'],
    ['view', '--opne', '--open'],
    ['explore', '--prest', '--preset'],
  ];
  for (const [command, misspelt, meant] of commands) {
    it(`${command} ${misspelt}: did you mean ${meant}?`, async () => {
      const line = await usageLine([command, misspelt]);
      expect(line).toBe(`usage: SJ105 unknown option ${misspelt}; did you mean ${meant}? (streamjoin ${command} --help lists the options)`);
    });
  }

  it('a value that starts with a dash is the value (its own check speaks), a missing value names the option, a flag takes no value', async () => {
    expect(await usageLine(['conform', '--sut', 'impl', '--runs', '-1'])).toBe(
      'usage: SJ105 --runs must be a non-negative integer, got "-1"',
    );
    expect(await usageLine(['conform', '--sut'])).toBe('usage: SJ105 --sut needs a value (streamjoin conform --help)');
    expect(await usageLine(['conform', '--out', '--itf'])).toBe(
      'usage: SJ105 --out needs a value, got the option --itf (streamjoin conform --help)',
    );
    expect(await usageLine(['run', '--json=yes'])).toBe('usage: SJ105 --json takes no value, got "--json=yes"');
    expect(await usageLine(['check', 'ci'])).toBe('usage: SJ105 check takes no positional arguments, got "ci" (streamjoin check --help)');
  });
});

describe('a system option is checked the same way whatever the system under test (in-process or a process)', () => {
  const systems = ['impl', 'model', 'python3 examples/python/join.py'];
  const mistakes: [flags: string[], message: string][] = [
    [['--timeout', 'abc'], 'usage: SJ105 --timeout must be a positive integer (milliseconds), got "abc"'],
    [['--startup-timeout', '0'], 'usage: SJ105 --startup-timeout must be a positive integer (milliseconds), got "0"'],
    [['--max-line', '0'], 'usage: SJ105 --max-line must be a positive integer (bytes), got "0"'],
  ];
  for (const [flags, message] of mistakes) {
    it(`${flags.join(' ')}: refused before anything runs, for conform and replay, with each system`, async () => {
      for (const sut of systems) {
        expect(await usageLine(['conform', '--sut', sut, '--runs', '1', '--examples', 'none', ...flags])).toBe(message);
        expect(await usageLine(['replay', 'spec/examples/horizon-boundary.trace.json', '--sut', sut, ...flags])).toBe(message);
      }
    });
  }
});
