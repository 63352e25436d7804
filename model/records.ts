// String-keyed records that are safe for ANY key — keys and worker ids are
// user data, and "__proto__" or "constructor" are valid ones. A record here
// inherits from one empty, frozen object whose own prototype is null: it
// inherits no names and has no special `__proto__` setter, like a
// prototype-less object, but V8 gives it fast (hidden-class) properties,
// where `Object.create(null)` starts in dictionary mode (measured: copying a
// 3-entry record is about 3x faster). Every update makes a new record (the
// model's state is immutable).

export type Entries<V> = Readonly<Record<string, V>>;

/** The prototype of every record: no properties, no prototype of its own. */
const NO_NAMES: object = Object.freeze(Object.create(null) as object);

/** A new empty record that inherits nothing. */
export function emptyEntries<V>(): Record<string, V> {
  return Object.create(NO_NAMES) as Record<string, V>;
}

/** A copy of `r`. */
export function copyEntries<V>(r: Entries<V>): Record<string, V> {
  const out = emptyEntries<V>();
  for (const k in r) out[k] = r[k] as V;
  return out;
}

/** A copy of `r` with `key` set to `value`. */
export function withEntry<V>(r: Entries<V>, key: string, value: V): Entries<V> {
  const out = copyEntries(r);
  out[key] = value;
  return out;
}

/** A copy of `r` without `key` (built without `delete`, which would drop the copy into dictionary mode). */
export function withoutEntry<V>(r: Entries<V>, key: string): Entries<V> {
  const out = emptyEntries<V>();
  for (const k in r) if (k !== key) out[k] = r[k] as V;
  return out;
}

/** A record of the given pairs. */
export function entriesOf<V>(pairs: Iterable<readonly [string, V]>): Record<string, V> {
  const out = emptyEntries<V>();
  for (const [k, v] of pairs) out[k] = v;
  return out;
}
