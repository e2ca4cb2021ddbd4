import { Effect, Record, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { toUserPartial, UserPartialColumns, type UserPartialResponse } from "../../src/model/Users.ts"
import { bool, int, type Row, text, textOrNull } from "./RowFields.ts"

const COLUMNS = Record.keys(UserPartialColumns.fields)

/** The columns of a partial user in the `users` table named `alias`, for a SELECT list that joins it. */
export const partialUserColumns = (alias: string): string => COLUMNS.map((column) => `${alias}.${column}`).join(", ")

const decodeUsers = Schema.decodeUnknownEffect(Schema.Array(UserPartialColumns))

/**
 * The partial user of a row that selected `partialUserColumns`, checked column by column
 * (RowFields.ts): for loads of many thousands of rows. `same` gives one copy of strings
 * many rows repeat (discriminators).
 */
export const readPartialUser = (row: Row, same: (value: string) => string): UserPartialResponse =>
  toUserPartial({
    id: text(row, "id"),
    username: text(row, "username"),
    discriminator: same(text(row, "discriminator")),
    global_name: textOrNull(row, "global_name"),
    avatar: textOrNull(row, "avatar"),
    bot: bool(row, "bot"),
    flags: text(row, "flags"),
    mention_flags: int(row, "mention_flags"),
    system: bool(row, "system")
  })

/** A function giving one copy of each distinct string it is given, for the strings of one load. */
export const oneCopyEach = (): ((value: string) => string) => {
  const seen = new Map<string, string>()
  return (value) => {
    const known = seen.get(value)
    if (known !== undefined) return known
    seen.set(value, value)
    return value
  }
}

/** Those of the users `ids` that exist, as partial users by id: one statement, none for no ids. */
export const loadPartialUsers = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (ids.length === 0) return new Map<string, UserPartialResponse>()
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT ${sql.literal(COLUMNS.join(", "))} FROM users WHERE id IN ${sql.in(ids)}`
    const users = yield* decodeUsers(rows)
    return new Map(users.map((user) => [user.id, toUserPartial(user)]))
  })
