// The benches' settings from the environment.

/** The whole number > 0 in `name`, or `fallback` when it is unset or not one. */
export const intEnv = (name: string, fallback: number): number => {
  const n = Number(process.env[name] ?? fallback)
  return Number.isInteger(n) && n > 0 ? n : fallback
}

/** The space-separated words in `name` (extra node options for a server, say); none when unset. */
export const wordsEnv = (name: string): ReadonlyArray<string> =>
  (process.env[name] ?? "").split(" ").filter((a) => a !== "")
