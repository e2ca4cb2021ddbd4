import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { randomInt } from "node:crypto"

const MAX_LENGTH = 32
const HOW_MANY = 5
/** What every suggestion matches: the spec's UsernameType (letters, digits, `_`), 2 to 32, lowercase. */
export const SUGGESTION = /^[a-z0-9_]{2,32}$/

/** A display name as a username: accents dropped, spaces and dots to `_`, anything else out. */
export const usernameBase = (globalName: string): string => {
  const base = globalName
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[\s.\-]+/g, "_")
    .replace(/[^a-z0-9_]/g, "")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "")
    .slice(0, MAX_LENGTH)
  return base.length >= 2 ? base : "user"
}

const withSuffix = (base: string, suffix: string) => base.slice(0, MAX_LENGTH - suffix.length) + suffix

/** Candidates in order of preference: the name itself, then with numbers. */
export const candidates = (globalName: string): Array<string> => {
  const base = usernameBase(globalName)
  const compact = base.replaceAll("_", "")
  const list = [base, compact.length >= 2 ? compact : base, withSuffix(base, "_")]
  for (const digits of [2, 2, 3, 3, 4, 4, 4, 4]) {
    const n = String(randomInt(10 ** (digits - 1), 10 ** digits))
    list.push(withSuffix(base, n), withSuffix(base, `_${n}`))
  }
  return [...new Set(list)].filter((name) => SUGGESTION.test(name))
}

/** Up to five usernames derived from `globalName` that nobody has yet. */
export const suggestUsernames = (sql: SqlClient.SqlClient, globalName: string): Effect.Effect<Array<string>> =>
  Effect.gen(function*() {
    const wanted = candidates(globalName)
    const taken = yield* sql<{ name: string }>`
      SELECT lower(username) AS name FROM users WHERE lower(username) IN ${sql.in(wanted)}`.pipe(Effect.orDie)
    const takenNames = new Set(taken.map((row) => row.name))
    return wanted.filter((name) => !takenNames.has(name)).slice(0, HOW_MANY)
  })
