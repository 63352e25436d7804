// Ids that make a naive match-id encoding collide (J3), built for every
// separator of a class rather than for a few common ones. A system that files
// a match under P + left + S + right (+ Q), with any prefix P and suffix Q,
// confuses two matches as soon as one left id is another followed by S and
// one right id is S followed by another: the sandwich
//
//   left x, left x{S}y, right y{S}z, right z
//
// makes (x, y{S}z) and (x{S}y, z) encode alike, P x S y S z Q, whatever P and
// Q are (and whatever key is put in front with S too). The classes covered:
// every separator of zero, one or two characters drawn from printable ASCII
// punctuation, the space and the side letters L and R, every punctuation-letter-
// punctuation triple (`|R:`, `,L=`), every punctuation quoted (`","`, `'|'`);
// and half-escaped encodings, which escape S but not their escape character
// (backslash, quote, percent): with esc(s) = s with every S preceded by E,
// (x{E}, y{S}z) and (x{S}y{E}, z) both encode to x E S y E S z; with S
// percent-encoded and `%` left alone, x%HHy and x{S}y are the same left id.
import fc from 'fast-check';
import type { LogRecord, RowRecord } from '../../spec/index.ts';

/** Printable ASCII punctuation: every character from `!` to `~` that is neither a letter nor a digit. */
export const PUNCTUATION: readonly string[] = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).filter(
  (c) => !/[A-Za-z0-9]/.test(c),
);

/** The side letters, which a naive encoding often spells around its parts (`L:a|R:b`). */
export const SIDE_LETTERS: readonly string[] = ['L', 'R'];

/** The characters of the separators built from the class: punctuation, a space (`, `) and the side letters. */
export const SEPARATOR_ALPHABET: readonly string[] = [...PUNCTUATION, ' ', ...SIDE_LETTERS];

/** Characters an encoding escapes with, which a half-escaped one forgets to escape in turn. */
export const ESCAPE_CHARACTERS: readonly string[] = ['\\', '"', "'", '%'];

/**
 * Every separator of the class, in a fixed order: the empty one (parts
 * simply concatenated: (x, yz) and (xy, z)), each character of the
 * alphabet, each pair, each punctuation-letter-punctuation triple, each
 * punctuation between double or single quotes.
 */
export function everySeparator(): string[] {
  const out: string[] = ['', ...SEPARATOR_ALPHABET];
  for (const a of SEPARATOR_ALPHABET) for (const b of SEPARATOR_ALPHABET) out.push(a + b);
  for (const a of PUNCTUATION) for (const l of SIDE_LETTERS) for (const b of PUNCTUATION) out.push(a + l + b);
  for (const q of ['"', "'"]) for (const p of PUNCTUATION) if (p !== q) out.push(q + p + q);
  return out;
}

/**
 * Two distinct matches that a naive encoding files under one id: the pairs
 * (left[0], right[0]) and (left[1], right[1]). `right` may name one id twice.
 */
export interface Collision {
  /** What collides: `sandwich S`, `half-escaped E S`, `percent S`. */
  readonly name: string;
  readonly left: readonly [string, string];
  readonly right: readonly [string, string];
}

/**
 * The sandwich of S: (x, y{S}z) and (x{S}y, z) concatenate alike with S
 * between. `tag` follows x, y and z (any text keeps the collision), so that
 * several collisions can share a key without sharing a row.
 */
export function sandwich(separator: string, tag = ''): Collision {
  const [x, y, z] = [`x${tag}`, `y${tag}`, `z${tag}`];
  return { name: `sandwich ${separator}`, left: [x, `${x}${separator}${y}`], right: [`${y}${separator}${z}`, z] };
}

/** S escaped as E S, E itself not escaped: (x{E}, y{S}z) and (x{S}y{E}, z) both encode to x E S y E S z. */
export function halfEscaped(escapeCharacter: string, separator: string, tag = ''): Collision {
  const [x, y, z] = [`x${tag}`, `y${tag}`, `z${tag}`];
  const e = escapeCharacter;
  return {
    name: `half-escaped ${e} ${separator}`,
    left: [`${x}${e}`, `${x}${separator}${y}${e}`],
    right: [`${y}${separator}${z}`, z],
  };
}

/** S percent-encoded, `%` itself not: the left ids x%HHy and x{S}y are one after escaping. */
export function percentEncoded(separator: string, tag = ''): Collision {
  const [x, y, z] = [`x${tag}`, `y${tag}`, `z${tag}`];
  const hex = [...separator].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return { name: `percent ${separator}`, left: [`${x}${hex}${y}`, `${x}${separator}${y}`], right: [z, z] };
}

/** The recipes of every collision of the class, in `everyCollision`'s order (so that a builder can tag each member, `collisionOf`). */
export function everyCollisionRecipe(): CollisionRecipe[] {
  const out: CollisionRecipe[] = everySeparator().map((separator) => ({ shape: 'sandwich', separator }));
  // The half-escaped and percent collisions of every single-character separator of the class, with every escape character.
  for (const separator of SEPARATOR_ALPHABET) {
    for (const e of ESCAPE_CHARACTERS) if (e !== separator) out.push({ shape: 'half-escaped', separator, escape: e });
    out.push({ shape: 'percent', separator });
  }
  return out;
}

/** Every collision of the class: the sandwich of every separator (`everySeparator`), and the escape collisions. */
export function everyCollision(): Collision[] {
  return everyCollisionRecipe().map((r) => collisionOf(r));
}

/**
 * The rows of a collision in `key` at time t (an instant, so that every
 * left row matches every right row): both left ids, then both right ids,
 * so that the second of the colliding matches is bound last.
 */
export function collisionRows(collision: Collision, key: string, t: number): RowRecord[] {
  const at = (side: 'L' | 'R', id: string): RowRecord => ({ kind: 'insert', key, side, id, ts: t, start: t, end: t });
  const rights = collision.right[0] === collision.right[1] ? [collision.right[0]] : collision.right;
  return [...collision.left.map((id) => at('L', id)), ...rights.map((id) => at('R', id))];
}

/**
 * The rows of a collision in `key` from time t so that, under D = 0 or
 * any D, only its two colliding matches are made: the first match's rows at
 * the instant t, the second's at t + 1; where one right row is in both
 * matches (the percent form), all at t. Half the sink entries of
 * `collisionRows`, for the cluster levels, where every entry is observed.
 */
export function collisionRowsApart(collision: Collision, key: string, t: number): RowRecord[] {
  if (collision.right[0] === collision.right[1]) return collisionRows(collision, key, t);
  const at = (side: 'L' | 'R', id: string, time: number): RowRecord => ({
    kind: 'insert',
    key,
    side,
    id,
    ts: time,
    start: time,
    end: time,
  });
  const [l0, l1] = collision.left;
  const [r0, r1] = collision.right;
  return [at('L', l0, t), at('R', r0, t), at('L', l1, t + 1), at('R', r1, t + 1)];
}

/** A row's identity (J2): key, side and id. */
export interface RowIdentity {
  readonly key: string;
  readonly side: 'L' | 'R';
  readonly id: string;
}

const otherSide = (side: 'L' | 'R'): 'L' | 'R' => (side === 'L' ? 'R' : 'L');

/** The record that inserts or retracts the row `r` at the instant t. */
export function rowAt(kind: 'insert' | 'retract', r: RowIdentity, t: number): RowRecord {
  return { kind, key: r.key, side: r.side, id: r.id, ts: t, start: t, end: t };
}

/**
 * Rows of two keys that a naive row identity files as one (J2), in a store
 * shared by the keys (one index of a worker or an operator for all of them),
 * for the separator S, built on the key K:
 *
 * - key + S + id, the side kept apart or not at all: the sandwich over
 *   (key, id), (K, A, u{S}v) and (K{S}u, B, v), with B the same side as A
 *   (a store per side confuses those) and the other (one for both sides);
 *   the second pair with w for u, so that no row is in both;
 * - key + S + side + S + id, the side spelled in: (K, A, u{S}B{S}v) and
 *   (K{S}A{S}u, B, v), both K S A S u S B S v, for both B;
 * - for a punctuation-letter-punctuation triple a{l}b, an encoding that writes
 *   the side between a and b (`|R:` spells `|`, the side, `:`): (K, l, u{a}B{b}v)
 *   and (K{a}l{b}u, B, v), for both B, so that the triples of both letters
 *   give every side pair.
 *
 * A is L or R by `n`, so that the class's members alternate.
 */
export function rowCollisions(separator: string, key: string, n: number): (readonly [RowIdentity, RowIdentity])[] {
  const [a, l, b] = [...separator];
  if (separator.length === 3 && (l === 'L' || l === 'R') && a !== undefined && b !== undefined)
    return ([l, otherSide(l)] as const).map((B) => [
      { key, side: l, id: `u${a}${B}${b}v` },
      { key: `${key}${a}${l}${b}u`, side: B, id: 'v' },
    ]);
  const A: 'L' | 'R' = n % 2 === 0 ? 'L' : 'R';
  const S = separator;
  return [
    [
      { key, side: A, id: `u${S}v` },
      { key: `${key}${S}u`, side: A, id: 'v' },
    ],
    [
      { key, side: A, id: `w${S}v` },
      { key: `${key}${S}w`, side: otherSide(A), id: 'v' },
    ],
    ...([A, otherSide(A)] as const).map((B): readonly [RowIdentity, RowIdentity] => [
      { key, side: A, id: `u${S}${B}${S}v` },
      { key: `${key}${S}${A}${S}u`, side: B, id: 'v' },
    ]),
  ];
}

/** Characters a random separator is drawn from beyond the class's alphabet: letters, digits, a space, the escape characters. */
const OTHER_CHARACTERS: readonly string[] = [...'abcxyzLRT019 '];

/**
 * A separator of zero to four characters: a quarter each from the single and
 * double characters of the class, from its triples (punctuation, side
 * letter, punctuation), and from any mix of punctuation, letters and digits
 * up to four long, the empty separator among them.
 */
export function randomSeparatorArbitrary(): fc.Arbitrary<string> {
  const punct = fc.constantFrom(...PUNCTUATION);
  const anyChar = fc.constantFrom(...SEPARATOR_ALPHABET, ...OTHER_CHARACTERS);
  return fc.oneof(
    fc.constantFrom(...SEPARATOR_ALPHABET),
    fc.tuple(fc.constantFrom(...SEPARATOR_ALPHABET), fc.constantFrom(...SEPARATOR_ALPHABET)).map(([a, b]) => a + b),
    fc.tuple(punct, fc.constantFrom(...SIDE_LETTERS), punct).map(([a, l, b]) => a + l + b),
    fc.array(anyChar, { maxLength: 4 }).map((cs) => cs.join('')),
  );
}

/** How a random collision is built, before it is tagged (`collisionOf`). */
export type CollisionRecipe =
  | { readonly shape: 'sandwich'; readonly separator: string }
  | { readonly shape: 'half-escaped'; readonly separator: string; readonly escape: string }
  | { readonly shape: 'percent'; readonly separator: string };

/** The collision a recipe builds, its names tagged with `tag`. */
export function collisionOf(recipe: CollisionRecipe, tag = ''): Collision {
  switch (recipe.shape) {
    case 'sandwich':
      return sandwich(recipe.separator, tag);
    case 'half-escaped':
      return halfEscaped(recipe.escape, recipe.separator, tag);
    case 'percent':
      return percentEncoded(recipe.separator, tag);
  }
}

/**
 * A collision of a random separator (`randomSeparatorArbitrary`): its
 * sandwich mostly, half-escaped or percent-encoded in one case in six each
 * (those two of a separator that is not empty: escaping nothing, they would
 * not collide, and percent-encoding nothing makes its two left ids one).
 */
export function randomCollisionArbitrary(): fc.Arbitrary<CollisionRecipe> {
  const separator = randomSeparatorArbitrary();
  const escaped = separator.filter((s) => s !== '');
  return fc.oneof(
    { weight: 4, arbitrary: separator.map((s): CollisionRecipe => ({ shape: 'sandwich', separator: s })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...ESCAPE_CHARACTERS), escaped)
        .map(([e, s]): CollisionRecipe => ({ shape: 'half-escaped', separator: s, escape: e })),
    },
    { weight: 1, arbitrary: escaped.map((s): CollisionRecipe => ({ shape: 'percent', separator: s })) },
  );
}

/**
 * A burst of collisions for a random trace: `slice` (drawn up to twice the
 * one asked for) consecutive collisions of the whole class (`everyCollision`,
 * from a random place, wrapping around), and a few of random separators of
 * zero to four characters. Random traces sample the class; the exhaustive
 * scenarios run all of it (operatorExhaustive.ts, clusterScenarios.ts).
 */
export interface CollisionBurst {
  readonly from: number;
  readonly slice: number;
  readonly random: readonly CollisionRecipe[];
}

export function collisionBurstArbitrary(slice: number, random: number): fc.Arbitrary<CollisionBurst> {
  return fc.record({
    from: fc.nat({ max: 1_000_000 }),
    // Up to twice `slice`, `slice` on average; it shrinks, so that a counterexample keeps only the collisions it needs.
    slice: fc.integer({ min: 0, max: 2 * slice }),
    random: fc.array(randomCollisionArbitrary(), { maxLength: random }),
  });
}

let classCache: CollisionRecipe[] | undefined;

/** The recipes of a burst's collisions: `slice` consecutive members of the class from `from` (wrapping around), then its random ones. */
export function burstRecipes(burst: CollisionBurst): CollisionRecipe[] {
  classCache ??= everyCollisionRecipe();
  const all = classCache;
  const out: CollisionRecipe[] = [];
  for (let i = 0; i < burst.slice && i < all.length; i++) out.push(all[(burst.from + i) % all.length] as CollisionRecipe);
  return [...out, ...burst.random];
}

/**
 * The logs of the exhaustive collision scenario (J3): the collisions in
 * chunks of `chunk`, each collision in a key of its own (`s{n}`, n its
 * place in the list) at time 0, so that nothing matches across them. Per
 * chunk one log: every row inserted, then in each key one endpoint of each
 * colliding match retracted, the first match's left row and then the second
 * match's right row, then both watermarks past every
 * horizon (L = D = 0), which evicts the rest. A naive id shows at the insert
 * that binds the second match, at a retraction that meets the other match
 * under the same id, or at the eviction.
 */
export function collisionScripts(collisions: readonly Collision[], chunk: number): LogRecord[][] {
  const out: LogRecord[][] = [];
  for (let from = 0; from < collisions.length; from += chunk) {
    const part = collisions.slice(from, from + chunk).map((c, i) => ({ c, key: `s${from + i}` }));
    const inserts = part.flatMap(({ c, key }) => collisionRows(c, key, 0));
    const retract = (key: string, side: 'L' | 'R', id: string): RowRecord => ({ kind: 'retract', key, side, id, ts: 0, start: 0, end: 0 });
    const end: LogRecord[] = [
      { kind: 'watermark', side: 'L', wm: 1 },
      { kind: 'watermark', side: 'R', wm: 1 },
    ];
    out.push([
      ...inserts,
      ...part.map(({ c, key }) => retract(key, 'L', c.left[0])),
      ...part.map(({ c, key }) => retract(key, 'R', c.right[1])),
      ...end,
    ]);
  }
  return out;
}

/**
 * The logs of the exhaustive row-collision part (J2): the row collisions of
 * every separator of the class (`rowCollisions`), in chunks of `chunk` collisions, each built on a
 * key of its own (`r{n}`) at time 0. Per chunk one log: both rows of each
 * inserted (the second is no duplicate of the first), then the first
 * retracted (the second stays), then both watermarks past every horizon
 * (L = D = 0), which evicts the rest. A naive identity shows at the second
 * insert, at the retraction, or in the retained counts.
 */
export function rowCollisionScripts(chunk: number): LogRecord[][] {
  const pairs = everySeparator().flatMap((separator, n) => rowCollisions(separator, `r${n}`, n));
  const out: LogRecord[][] = [];
  for (let from = 0; from < pairs.length; from += chunk) {
    const part = pairs.slice(from, from + chunk);
    out.push([
      ...part.flatMap(([a, b]) => [rowAt('insert', a, 0), rowAt('insert', b, 0)]),
      ...part.map(([a]) => rowAt('retract', a, 0)),
      { kind: 'watermark', side: 'L', wm: 1 },
      { kind: 'watermark', side: 'R', wm: 1 },
    ]);
  }
  return out;
}
