// String order of SPEC §0: by Unicode code point. JavaScript's `<` compares
// UTF-16 code units, which orders U+E000..U+FFFF after astral characters; a
// harness comparing against an implementation in another language must not
// depend on that accident.

/** Compares two strings by Unicode code point, then by length (SPEC §0). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only surrogates are out of order in UTF-16; lift them above the BMP.
    const surrogateX = x >= 0xd800 && x <= 0xdfff;
    const surrogateY = y >= 0xd800 && y <= 0xdfff;
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Canonical order of the changes of one record: by match id (SPEC J7). */
export function compareByMatchId<T extends { match: string }>(a: T, b: T): number {
  return compareCodePoints(a.match, b.match);
}
