import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { isoTimestamp } from "../platform/Timestamps.ts"
import { toUserPartial, type UserRow } from "../model/Users.ts"
import { type RelationshipResponse, RelationshipType } from "./Api.ts"

/** Whoever is on either end of a relationship change, as far as the rules care. */
export interface Party {
  readonly id: string
  readonly bot: boolean
  readonly staff: boolean
  /** False for an account that is disabled or on its way to deletion: it takes no new requests. */
  readonly reachable: boolean
}

type ViewRow = UserRow & { readonly type: number; readonly nickname: string | null; readonly since: Date | string }

const typeOf = (n: number): RelationshipType => {
  if (n === 1 || n === 2 || n === 3 || n === 4) return n
  throw new Error(`relationship type ${n} is not one the schema allows`)
}

const toView = (row: ViewRow): RelationshipResponse => ({
  id: String(row.id),
  type: typeOf(row.type),
  user: toUserPartial(row),
  since: isoTimestamp(row.since),
  nickname: row.nickname,
  // Voice activity sharing has no setting yet: nobody shares.
  share_voice_activity: false,
  friend_shares_voice_activity: false
})

/**
 * The relationships table (schema/0008_relationships_push.sql): one row per
 * side. The rules live in Relationships; this only reads and writes rows, and
 * every write is meant to run inside the caller's transaction after `lock`.
 */
export class RelationshipsRepo extends Context.Service<RelationshipsRepo, {
  /** Serializes relationship changes of these users until the transaction ends. */
  readonly lock: (a: string, b: string) => Effect.Effect<void>
  readonly party: (id: string) => Effect.Effect<Party | undefined>
  /** The user named `username#discriminator` (any case of the name). */
  readonly findByTag: (username: string, discriminator: string) => Effect.Effect<string | undefined>
  /** What `target` is to `user`. */
  readonly typeOf: (user: string, target: string) => Effect.Effect<RelationshipType | undefined>
  /** Writes `user`'s side; a new type starts a new `since` and drops the nickname. */
  readonly set: (user: string, target: string, type: RelationshipType) => Effect.Effect<void>
  /** Deletes `user`'s side if it is one of `types`. */
  readonly drop: (user: string, target: string, types: ReadonlyArray<RelationshipType>) => Effect.Effect<boolean>
  /** Friends and outgoing requests: what the friend limit counts. */
  readonly friendsAndRequests: (user: string) => Effect.Effect<number>
  readonly view: (user: string, target: string) => Effect.Effect<RelationshipResponse | undefined>
  readonly list: (user: string) => Effect.Effect<ReadonlyArray<RelationshipResponse>>
  /** False when `target` is not `user`'s friend. */
  readonly setNickname: (user: string, target: string, nickname: string | null) => Effect.Effect<boolean>
}>()("guildhall/RelationshipsRepo") {
  static readonly layer = Layer.effect(
    RelationshipsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      return RelationshipsRepo.of({
        // Keyed by the user id (snowflakes never meet the migrations' key) and taken
        // in id order, so two changes touching the same users cannot deadlock.
        lock: Effect.fn("RelationshipsRepo.lock")((a, b) =>
          Effect.forEach(
            [...new Set([a, b])].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1)),
            (id) => sql`SELECT pg_advisory_xact_lock(${id}::bigint)`,
            { discard: true }
          ).pipe(Effect.orDie)),
        party: Effect.fn("RelationshipsRepo.party")((id) =>
          sql<{ id: string; bot: boolean; acls: ReadonlyArray<string>; reachable: boolean }>`
            SELECT id, bot, acls, disabled_at IS NULL AND deletion_scheduled_at IS NULL AS reachable
            FROM users WHERE id = ${id}`.pipe(
            Effect.map((rows) => {
              const row = rows[0]
              return row === undefined
                ? undefined
                : { id: String(row.id), bot: row.bot, staff: row.acls.length > 0, reachable: row.reachable }
            }),
            Effect.orDie
          )),
        findByTag: Effect.fn("RelationshipsRepo.findByTag")((username, discriminator) =>
          sql<{ id: string }>`SELECT id FROM users WHERE lower(username) = lower(${username}) AND discriminator = ${discriminator}`.pipe(
            Effect.map((rows) => (rows[0] === undefined ? undefined : String(rows[0].id))),
            Effect.orDie
          )),
        typeOf: Effect.fn("RelationshipsRepo.typeOf")((user, target) =>
          sql<{ type: number }>`SELECT type FROM relationships WHERE user_id = ${user} AND target_id = ${target}`.pipe(
            Effect.map((rows) => (rows[0] === undefined ? undefined : typeOf(rows[0].type))),
            Effect.orDie
          )),
        set: Effect.fn("RelationshipsRepo.set")((user, target, type) =>
          sql`INSERT INTO relationships (user_id, target_id, type) VALUES (${user}, ${target}, ${type})
              ON CONFLICT (user_id, target_id) DO UPDATE SET type = EXCLUDED.type, since = now(), nickname = NULL
              WHERE relationships.type <> EXCLUDED.type`.pipe(Effect.asVoid, Effect.orDie)),
        drop: Effect.fn("RelationshipsRepo.drop")((user, target, types) =>
          sql`DELETE FROM relationships
              WHERE user_id = ${user} AND target_id = ${target} AND type IN ${sql.in(types)}
              RETURNING 1`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)),
        friendsAndRequests: Effect.fn("RelationshipsRepo.friendsAndRequests")((user) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM relationships
                             WHERE user_id = ${user} AND type IN (${RelationshipType.friend}, ${RelationshipType.outgoing})`.pipe(
            Effect.map((rows) => Number(rows[0]?.n ?? 0)),
            Effect.orDie
          )),
        view: Effect.fn("RelationshipsRepo.view")((user, target) =>
          sql<ViewRow>`SELECT u.*, r.type, r.nickname, r.since
                       FROM relationships r JOIN users u ON u.id = r.target_id
                       WHERE r.user_id = ${user} AND r.target_id = ${target}`.pipe(
            Effect.map((rows) => (rows[0] === undefined ? undefined : toView(rows[0]))),
            Effect.orDie
          )),
        list: Effect.fn("RelationshipsRepo.list")((user) =>
          sql<ViewRow>`SELECT u.*, r.type, r.nickname, r.since
                       FROM relationships r JOIN users u ON u.id = r.target_id
                       WHERE r.user_id = ${user} ORDER BY r.since, r.target_id`.pipe(
            Effect.map((rows) => rows.map(toView)),
            Effect.orDie
          )),
        setNickname: Effect.fn("RelationshipsRepo.setNickname")((user, target, nickname) =>
          sql`UPDATE relationships SET nickname = ${nickname}
              WHERE user_id = ${user} AND target_id = ${target} AND type = ${RelationshipType.friend}
              RETURNING 1`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))
      })
    })
  )
}
