import { Effect, Record, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { toUserPartial, UserPartialColumns, type UserPartialResponse } from "../../src/model/Users.ts"

const COLUMNS = Record.keys(UserPartialColumns.fields)

/** The columns of a partial user in the `users` table named `alias`, for a SELECT list that joins it. */
export const partialUserColumns = (alias: string): string => COLUMNS.map((column) => `${alias}.${column}`).join(", ")

const decodeUsers = Schema.decodeUnknownEffect(Schema.Array(UserPartialColumns))

/** Those of the users `ids` that exist, as partial users by id: one statement, none for no ids. */
export const loadPartialUsers = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (ids.length === 0) return new Map<string, UserPartialResponse>()
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT ${sql.literal(COLUMNS.join(", "))} FROM users WHERE id IN ${sql.in(ids)}`
    const users = yield* decodeUsers(rows)
    return new Map(users.map((user) => [user.id, toUserPartial(user)]))
  })
