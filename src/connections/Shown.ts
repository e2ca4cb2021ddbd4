import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ConnectionResponse } from "../model/Connections.ts"

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ConnectionResponse))

/**
 * The verified connections of a user, in their list's order, for their
 * profile (src/users/Profiles.ts filters them by who looks). Read from
 * Postgres, where the user's actor writes them before it answers.
 */
export class ShownConnections extends Context.Service<ShownConnections, {
  readonly verifiedOf: (userId: string) => Effect.Effect<ReadonlyArray<ConnectionResponse>>
}>()("guildhall/ShownConnections") {
  static readonly layer = Layer.effect(
    ShownConnections,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const verifiedOf = Effect.fn("ShownConnections.verifiedOf")(function*(userId: string) {
        const rows = yield* sql`
          SELECT id::text AS id, type, name, verified, visibility_flags, sort_order FROM user_connections
          WHERE user_id = ${userId} AND verified
          ORDER BY sort_order, id`
        return yield* decodeRows(rows)
      }, Effect.orDie)
      return ShownConnections.of({ verifiedOf })
    })
  )
}
