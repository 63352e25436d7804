// impl's own J3 match-id encoding. Deliberately not imported from spec/: the
// mutant catalogue swaps this function for broken variants to show the
// harness notices, and the harness compares ids only as strings.

/** J3 `esc`: `%` -> `%25`, then `/` -> `%2F`. Most ids contain neither, so test first. */
function escapeMatchIdPart(part: string): string {
  // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  if (part.indexOf('%') < 0 && part.indexOf('/') < 0) return part;
  let out = '';
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c === 0x25) out += '%25';
    else if (c === 0x2f) out += '%2F';
    else out += part[i];
  }
  return out;
}

/** J3: the match id of the pair (key, left id, right id); injective. */
export function encodeMatchId(key: string, left: string, right: string): string {
  // mutant: ambiguous-match-ids
  return `${escapeMatchIdPart(key)}/${escapeMatchIdPart(left)}/${escapeMatchIdPart(right)}`;
}
