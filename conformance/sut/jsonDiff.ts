// Structural comparison of JSON values: equality that ignores object key
// order, and a diff that lists only the paths that differ.

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** One difference: a JSON pointer and the two values there (`undefined` = absent). */
export interface PathDiff {
  /** JSON pointer of the value that differs. */
  readonly path: string;
  /** The expected value there. */
  readonly expected: unknown;
  /** The actual value there. */
  readonly actual: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every path at which `expected` and `actual` differ, shallowest first within
 * each branch. Arrays compare index by index; a length difference shows as
 * absent elements. Stops after `limit` differences.
 */
export function diffJson(expected: unknown, actual: unknown, limit = 50): PathDiff[] {
  const out: PathDiff[] = [];
  const walk = (e: unknown, a: unknown, path: string): void => {
    if (out.length >= limit) return;
    if (Array.isArray(e) && Array.isArray(a)) {
      for (let i = 0; i < Math.max(e.length, a.length); i++) walk(e[i], a[i], `${path}/${i}`);
      return;
    }
    if (isObject(e) && isObject(a)) {
      const keys = new Set([...Object.keys(e), ...Object.keys(a)]);
      for (const k of [...keys].sort()) walk(e[k], a[k], `${path}/${escapePointer(k)}`);
      return;
    }
    // `===`, not Object.is: JSON has one zero, and a system may write it -0 (JSON has no NaN to tell apart).
    if (e !== a) out.push({ path: path === '' ? '/' : path, expected: e, actual: a });
  };
  walk(expected, actual, '');
  return out;
}

/**
 * Deep equality ignoring object key order (`undefined`-valued keys count as
 * absent). It runs on every step of every trace (events and observations),
 * so it allocates nothing: objects are walked with `for...in` and their
 * defined own keys counted.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const arrayA = Array.isArray(a);
  if (arrayA !== Array.isArray(b)) return false;
  if (arrayA) {
    const xs = a as readonly unknown[];
    const ys = b as readonly unknown[];
    if (xs.length !== ys.length) return false;
    for (let i = 0; i < xs.length; i++) if (!sameJson(xs[i], ys[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k) || x[k] === undefined) continue;
    defined++;
    if (!Object.hasOwn(y, k) || !sameJson(x[k], y[k])) return false;
  }
  for (const k in y) if (Object.hasOwn(y, k) && y[k] !== undefined) defined--;
  return defined === 0;
}

/** A value for a message: `(absent)` for undefined, else compact JSON. */
export function showValue(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/**
 * JSON indented by two spaces, except that any array or object whose compact
 * form fits in `width` columns (indentation included) stays on one line: a
 * trace reads one step, one event, one copy per line.
 */
/** The line width prettyJson lays values out to by default. */
export const PRETTY_WIDTH = 110;

export function prettyJson(value: unknown, width = PRETTY_WIDTH): string {
  const render = (v: unknown, indent: string): string => {
    const flat = JSON.stringify(v);
    if (flat === undefined) return 'null';
    if (typeof v !== 'object' || v === null || indent.length + flat.length <= width) return flat;
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((x) => `${inner}${render(x, inner)}`).join(',\n')}\n${indent}]`;
    }
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${render(x, inner)}`).join(',\n')}\n${indent}}`;
  };
  return render(value, '');
}
