import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ConnectionType } from "../model/Connections.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"

/** How long a started verification may be completed. */
export const INITIATION_MINUTES = 30
/** Started verifications one user may have waiting; starting another forgets the oldest. */
const MAX_PENDING = 20

/** A started verification: the account and the string to find published for it. */
export const Initiation = Schema.Struct({
  type: ConnectionType,
  name: Schema.String,
  proof: Schema.String,
  visibility_flags: Schema.Int
})
export type Initiation = typeof Initiation.Type
const decodeInitiation = Schema.decodeUnknownEffect(Initiation)

/**
 * Started connection verifications (connection_initiations). The initiation
 * token the client holds is stored as its SHA-256 only; it is good for one
 * connection, for INITIATION_MINUTES, and only for the user who started it.
 */
export class ConnectionInitiations extends Context.Service<ConnectionInitiations, {
  /** Records a verification and answers its initiation token. */
  readonly start: (userId: string, initiation: Initiation) => Effect.Effect<string>
  /** The user's unexpired verification of `token`, if any. */
  readonly find: (userId: string, token: string) => Effect.Effect<Initiation | undefined>
  /** Uses the token up: true when this call did (a second use, or a race, finds it gone). */
  readonly consume: (userId: string, token: string) => Effect.Effect<boolean>
}>()("guildhall/ConnectionInitiations") {
  static readonly layer = Layer.effect(
    ConnectionInitiations,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const start = Effect.fn("ConnectionInitiations.start")(function*(userId: string, initiation: Initiation) {
        const token = newToken()
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM connection_initiations WHERE user_id = ${userId} AND expires_at <= now()`
          yield* sql`
            DELETE FROM connection_initiations WHERE token_hash IN (
              SELECT token_hash FROM connection_initiations WHERE user_id = ${userId}
              ORDER BY created_at DESC OFFSET ${MAX_PENDING - 1})`
          yield* sql`
            INSERT INTO connection_initiations (token_hash, user_id, type, name, proof, visibility_flags, expires_at)
            VALUES (${tokenHash(token)}, ${userId}, ${initiation.type}, ${initiation.name}, ${initiation.proof},
              ${initiation.visibility_flags}, now() + make_interval(mins => ${INITIATION_MINUTES}))`
        }))
        return token
      }, Effect.orDie)

      const find = Effect.fn("ConnectionInitiations.find")(function*(userId: string, token: string) {
        const [row] = yield* sql`
          SELECT type, name, proof, visibility_flags FROM connection_initiations
          WHERE token_hash = ${tokenHash(token)} AND user_id = ${userId} AND expires_at > now()`
        return row === undefined ? undefined : yield* decodeInitiation(row)
      }, Effect.orDie)

      const consume = Effect.fn("ConnectionInitiations.consume")(function*(userId: string, token: string) {
        const rows = yield* sql`
          DELETE FROM connection_initiations
          WHERE token_hash = ${tokenHash(token)} AND user_id = ${userId} AND expires_at > now()
          RETURNING 1 AS used`
        return rows.length > 0
      }, Effect.orDie)

      return ConnectionInitiations.of({ start, find, consume })
    })
  )
}
