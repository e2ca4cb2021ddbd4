// The last line a bench script that runs in a process of its own prints, `{"<key>": figures}`,
// as ops/bench/run.ts reads it back from the script's output.

/** The figures under `key` when `line` is that script's line, else undefined. */
export const figuresOf = (line: string, key: string): unknown => {
  if (!line.startsWith(`{"${key}":`)) return undefined
  const parsed: unknown = JSON.parse(line)
  return typeof parsed === "object" && parsed !== null ? Reflect.get(parsed, key) : undefined
}

/** The number under `key` of `figures`; NaN when it has none, so that a target on it cannot hold. */
export const numberOf = (figures: unknown, key: string): number => {
  const value: unknown = typeof figures === "object" && figures !== null ? Reflect.get(figures, key) : undefined
  return typeof value === "number" ? value : Number.NaN
}

