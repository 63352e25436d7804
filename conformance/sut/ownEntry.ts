// The model keeps its maps (workers, a worker's copies, the store) in
// objects without a prototype, so that any name a trace may use — the random
// domains draw `__proto__` and `constructor` on purpose — reads back as its
// entry or as undefined, never as Object.prototype's. Code outside the model
// that rebuilds a model state must keep them so: a spread (`{ ...keys }`)
// gives the copy a prototype again.

/** `record` with `name` set to `value`, as a new object without a prototype. */
export function withOwnEntry<V>(record: Readonly<Record<string, V>>, name: string, value: V): Record<string, V> {
  const out = Object.assign(Object.create(null) as Record<string, V>, record);
  Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  return out;
}
