import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

export interface TargetUser {
  readonly id: string
  readonly avatar: string | null
  readonly flags: bigint
  readonly email: string | null
  readonly username: string
}
export interface TargetGuild {
  readonly id: string
  readonly name: string
  readonly ownerId: string
}

/** What a report names, looked up as it is when reported. */
export class ReportTargets extends Context.Service<ReportTargets, {
  readonly user: (id: string) => Effect.Effect<TargetUser | undefined>
  /** A user by `username#1234`. */
  readonly userByTag: (tag: string) => Effect.Effect<TargetUser | undefined>
  readonly guild: (id: string) => Effect.Effect<TargetGuild | undefined>
}>()("guildhall/ReportTargets") {
  static readonly layer = Layer.effect(
    ReportTargets,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      interface UserRow { readonly id: string; readonly avatar: string | null; readonly flags: string; readonly email: string | null; readonly username: string }
      const toUser = (rows: ReadonlyArray<UserRow>): TargetUser | undefined => {
        const row = rows[0]
        return row === undefined ? undefined : { ...row, flags: BigInt(row.flags) }
      }
      const columns = sql`id::text AS id, avatar, flags::text AS flags, email, username`
      return ReportTargets.of({
        user: (id) => sql<UserRow>`SELECT ${columns} FROM users WHERE id = ${id}`.pipe(Effect.map(toUser), Effect.orDie),
        userByTag: (tag) => {
          const at = tag.lastIndexOf("#")
          const name = tag.slice(0, at)
          const discriminator = tag.slice(at + 1)
          return sql<UserRow>`SELECT ${columns} FROM users WHERE lower(username) = lower(${name})
            AND lpad(discriminator, 4, '0') = ${discriminator}`.pipe(Effect.map(toUser), Effect.orDie)
        },
        guild: (id) =>
          sql<{ id: string; name: string; owner_id: string }>`SELECT id::text AS id, name, owner_id::text AS owner_id FROM guilds WHERE id = ${id}`.pipe(
            Effect.map((rows) => {
              const row = rows[0]
              return row === undefined ? undefined : { id: row.id, name: row.name, ownerId: row.owner_id }
            }),
            Effect.orDie
          )
      })
    })
  )
}
