/**
 * Checks the admin API's JSON against the fields the page reads, so that a
 * changed answer shows as an error instead of `undefined` on screen. Only the
 * fields named are read; others pass unseen.
 */
export class DecodeError extends Error {}

export type Decoder<A> = (value: unknown, path: string) => A
export type Decoded<D> = D extends Decoder<infer A> ? A : never

const fail = (path: string, expected: string, value: unknown): never => {
  throw new DecodeError(`${path}: expected ${expected}, got ${value === null ? "null" : typeof value}`)
}

export const string: Decoder<string> = (value, path) => typeof value === "string" ? value : fail(path, "a string", value)
export const number: Decoder<number> = (value, path) => typeof value === "number" ? value : fail(path, "a number", value)
export const boolean: Decoder<boolean> = (value, path) => typeof value === "boolean" ? value : fail(path, "a boolean", value)
/** Whatever is there: for answers the page does not read. */
export const ignored: Decoder<unknown> = (value) => value

export const nullable = <A>(decoder: Decoder<A>): Decoder<A | null> => (value, path) => value === null ? null : decoder(value, path)

export const optional = <A>(decoder: Decoder<A>): Decoder<A | undefined> => (value, path) =>
  value === undefined ? undefined : decoder(value, path)

export const array = <A>(decoder: Decoder<A>): Decoder<ReadonlyArray<A>> => (value, path) =>
  Array.isArray(value) ? value.map((item, i) => decoder(item, `${path}[${i}]`)) : fail(path, "an array", value)

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const record = <A>(decoder: Decoder<A>): Decoder<Readonly<Record<string, A>>> => (value, path) => {
  if (!isRecord(value)) return fail(path, "an object", value)
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, decoder(item, `${path}.${key}`)]))
}

export const object = <Shape extends Record<string, Decoder<unknown>>>(
  shape: Shape
): Decoder<{ readonly [K in keyof Shape]: Decoded<Shape[K]> }> =>
(value, path) => {
  if (!isRecord(value)) return fail(path, "an object", value)
  const result: Record<string, unknown> = {}
  for (const [key, decoder] of Object.entries(shape)) result[key] = decoder(value[key], `${path}.${key}`)
  // Each field was checked by its own decoder just above.
  return result as { readonly [K in keyof Shape]: Decoded<Shape[K]> }
}
