// The J3 match id encoding, reference version. Injective: see SPEC J3 and
// matchId.test.ts. Implementations may (and impl/ does) carry their own copy;
// the harness compares ids as strings.

/** Escapes one component of a match id: `%` -> `%25`, then `/` -> `%2F` (SPEC J3). Most names hold neither. */
export function escapeComponent(s: string): string {
  if (!s.includes('%') && !s.includes('/')) return s;
  return s.replaceAll('%', '%25').replaceAll('/', '%2F');
}

function unescapeComponent(s: string): string {
  return s.replaceAll('%2F', '/').replaceAll('%25', '%');
}

/** The match id of `(key, left, right)` (SPEC J3). */
export function matchId(key: string, left: string, right: string): string {
  return `${escapeComponent(key)}/${escapeComponent(left)}/${escapeComponent(right)}`;
}

/** Inverse of `matchId`; `undefined` if `id` is not the image of any triple. */
export function parseMatchId(id: string): { key: string; left: string; right: string } | undefined {
  if (!id.includes('%')) {
    // No escapes: each component is itself (escaping a string without % or / leaves it as it is), and the id is canonical.
    const a = id.indexOf('/');
    const b = a < 0 ? -1 : id.indexOf('/', a + 1);
    if (b < 0 || id.includes('/', b + 1)) return undefined;
    return { key: id.slice(0, a), left: id.slice(a + 1, b), right: id.slice(b + 1) };
  }
  const parts = id.split('/');
  if (parts.length !== 3) return undefined;
  const [k, l, r] = parts as [string, string, string];
  const triple = { key: unescapeComponent(k), left: unescapeComponent(l), right: unescapeComponent(r) };
  // Reject strings that are not canonical encodings (e.g. a bare `%`).
  return matchId(triple.key, triple.left, triple.right) === id ? triple : undefined;
}
