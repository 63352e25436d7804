// The one option parser of every command: node:util parseArgs, with the
// arguments checked first against the command's options so that every
// mistake gets one line in streamjoin's words, the same for every command:
// an unknown option names the nearest valid one, a missing value says which
// option wants it, and a value that starts with a dash (`--runs -1`) is
// taken as the value, so the option's own check says what is wrong with it.
// Node's own messages (several lines, quoted oddly) never reach the user.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, usageError } from './exitCodes.ts';
import { outDirProblem } from '../conformance/streams/atomicFiles.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Edit distance (insertions, deletions, substitutions, and swaps of neighbours). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      let d = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The valid option nearest to `name` (a misspelling, or the start of one), if one is near enough to be meant. */
export function nearestOption(name: string, options: readonly string[]): string | undefined {
  const starting = options.filter((o) => o.startsWith(name));
  if (name.length >= 3 && starting.length === 1) return starting[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const o of options) {
    const d = distance(name, o);
    if (d < bestDistance) {
      best = o;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** `streamjoin COMMAND --help`, or `--help` when the command is not named. */
const helpOf = (command: string | undefined): string => (command ? `streamjoin ${command} --help` : '--help');

function optionNamed(options: Options, token: string): { name: string; type: 'string' | 'boolean' } | undefined {
  if (token.startsWith('--')) {
    const name = token.slice(2).split('=')[0] as string;
    const o = options[name];
    return o ? { name, type: o.type } : undefined;
  }
  for (const [name, o] of Object.entries(options)) if (o.short !== undefined && `-${o.short}` === token) return { name, type: o.type };
  return undefined;
}

/**
 * The arguments checked against the options (UsageError, one line, for the
 * first mistake), and rewritten so that a value starting with a dash stays
 * the value of the option before it (`--runs -1` as `--runs=-1`).
 */
function checkedArgs(args: readonly string[], options: Options, allowPositionals: boolean, command: string | undefined): string[] {
  const out: string[] = [];
  const names = Object.keys(options);
  for (let i = 0; i < args.length; i++) {
    const token = args[i] as string;
    if (token === '--') {
      const rest = args.slice(i + 1);
      if (!allowPositionals && rest.length > 0)
        throw new UsageError(`${command ?? 'this command'} takes no positional arguments, got "${rest[0]}"`);
      out.push(...args.slice(i));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      if (!allowPositionals)
        throw new UsageError(`${command ?? 'this command'} takes no positional arguments, got "${token}" (${helpOf(command)})`);
      out.push(token);
      continue;
    }
    const option = optionNamed(options, token);
    if (!option) {
      const name = token.startsWith('--') ? (token.slice(2).split('=')[0] as string) : token.replace(/^-+/, '');
      const near = nearestOption(name, names);
      throw new UsageError(
        `unknown option ${token.split('=')[0]}${near !== undefined ? `; did you mean --${near}?` : ''} (${helpOf(command)} lists the options)`,
      );
    }
    const inline = token.includes('=');
    if (option.type === 'boolean') {
      if (inline) throw new UsageError(`--${option.name} takes no value, got "${token}"`);
      out.push(token);
      continue;
    }
    if (inline) {
      out.push(token);
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value === '--' || (value.startsWith('-') && value !== '-' && optionNamed(options, value) !== undefined)) {
      throw new UsageError(`--${option.name} needs a value${value === undefined ? '' : `, got the option ${value}`} (${helpOf(command)})`);
    }
    out.push(`--${option.name}=${value}`);
    i++;
  }
  return out;
}

/**
 * Parses a command's arguments: `parseArgs`, after `checkedArgs`, so that
 * every usage mistake is one UsageError line that names the option and, for
 * an unknown one, the nearest valid one. `command` names the command in the
 * messages (`streamjoin run --help`).
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T, command?: string): ReturnType<typeof parseArgs<T>> {
  const args = checkedArgs(config.args ?? [], config.options ?? {}, config.allowPositionals ?? false, command);
  try {
    return parseArgs<T>({ ...config, args });
  } catch (e) {
    // Anything the check above let through: still one line of ours.
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(`${(e as Error).message.split('\n')[0] as string} (${helpOf(command)})`);
    }
    throw e;
  }
}

/**
 * A directory a command writes into (`--out`, `--regressions`, `--record`), checked before the run
 * (`outDirProblem`): what is found is never lost to a place it cannot be written.
 */
export function checkedOutDir(flag: string, dir: string): string {
  const problem = outDirProblem(dir);
  if (problem) throw usageError(`${flag} ${dir}: ${problem}`);
  return dir;
}
