import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { toUserPartial, UserPartialColumns, type UserPartialResponse } from "../model/Users.ts"
import { partialUserColumns } from "../../shards/actors/PartialUsers.ts"

/** Whoever is on either end of a relationship change, as far as the rules care. */
export interface Party {
  readonly user: UserPartialResponse
  readonly bot: boolean
  readonly staff: boolean
  /** False for an account that is disabled or on its way to deletion: it takes no new requests. */
  readonly reachable: boolean
}

const PartyRow = Schema.Struct({
  ...UserPartialColumns.fields,
  acls: Schema.Array(Schema.String),
  reachable: Schema.Boolean
})
const decodeParties = Schema.decodeUnknownEffect(Schema.Array(PartyRow))

/**
 * What a relationship change needs of Postgres besides the users' actors: the
 * account facts the actors do not keep (disabled, deletion scheduled), and
 * finding a user by tag. The relationships themselves are the actors'
 * (shards/user/operations/Relationships.ts).
 */
export class RelationshipsRepo extends Context.Service<RelationshipsRepo, {
  /** Those of `ids` that exist, by id. */
  readonly parties: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, Party>>
  /** The user named `username#discriminator` (any case of the name). */
  readonly findByTag: (username: string, discriminator: string) => Effect.Effect<string | undefined>
}>()("guildhall/RelationshipsRepo") {
  static readonly layer = Layer.effect(
    RelationshipsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      return RelationshipsRepo.of({
        parties: Effect.fn("RelationshipsRepo.parties")(function*(ids) {
          const rows = yield* sql`
            SELECT ${sql.literal(partialUserColumns("u"))}, u.acls, u.disabled_at IS NULL AND u.deletion_scheduled_at IS NULL AS reachable
            FROM users u WHERE u.id IN ${sql.in(ids)}`
          const parties = yield* decodeParties(rows)
          return new Map(parties.map((row): [string, Party] => [
            row.id,
            { user: toUserPartial(row), bot: row.bot, staff: row.acls.length > 0, reachable: row.reachable }
          ]))
        }, Effect.orDie),
        findByTag: Effect.fn("RelationshipsRepo.findByTag")((username, discriminator) =>
          sql<{ id: string }>`SELECT id FROM users WHERE lower(username) = lower(${username}) AND discriminator = ${discriminator}`.pipe(
            Effect.map((rows) => (rows[0] === undefined ? undefined : String(rows[0].id))),
            Effect.orDie
          ))
      })
    })
  )
}
