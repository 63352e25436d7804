// Structural comparison of JSON values: equality that ignores object key
// order, and a diff that lists only the paths that differ.

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** One difference: a JSON pointer and the two values there (`undefined` = absent). */
export interface PathDiff {
  readonly path: string;
  readonly expected: unknown;
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
    if (!Object.is(e, a)) out.push({ path: path === '' ? '/' : path, expected: e, actual: a });
  };
  walk(expected, actual, '');
  return out;
}

/** Deep equality ignoring object key order (`undefined`-valued keys count as absent). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!sameJson(a[k], b[k])) return false;
    return true;
  }
  return false;
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
export function prettyJson(value: unknown, width = 110): string {
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
