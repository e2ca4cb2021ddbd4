import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { UserRow } from "../model/Users.ts"


export interface NewUser {
  readonly id: string
  readonly username: string
  readonly discriminator: string
  readonly globalName: string | null
  readonly email: string
  readonly passwordHash: string
  readonly dateOfBirth: string
  readonly theme: string
}

/**
 * Lookups of `users` and new accounts. Nothing here changes an existing
 * account: that goes through the user's actor (shards/user), or a flow whose
 * secrets live elsewhere makes the actor read it again (AccountRefresh.ts).
 */
export class UsersRepo extends Context.Service<UsersRepo, {
  readonly findById: (id: string) => Effect.Effect<UserRow | undefined>
  readonly findByEmail: (email: string) => Effect.Effect<UserRow | undefined>
  readonly emailTaken: (email: string) => Effect.Effect<boolean>
  readonly takenDiscriminators: (username: string) => Effect.Effect<ReadonlySet<string>>
  /** False when the email or the username#discriminator was taken meanwhile. */
  readonly insert: (user: NewUser) => Effect.Effect<boolean>
}>()("guildhall/UsersRepo") {
  static readonly layer = Layer.effect(
    UsersRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const first = (rows: ReadonlyArray<UserRow>) => rows[0]
      return UsersRepo.of({
        findById: Effect.fn("UsersRepo.findById")((id) =>
          sql<UserRow>`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie)),
        findByEmail: Effect.fn("UsersRepo.findByEmail")((email) =>
          sql<UserRow>`SELECT * FROM users WHERE lower(email) = lower(${email})`.pipe(Effect.map(first), Effect.orDie)),
        emailTaken: Effect.fn("UsersRepo.emailTaken")((email) =>
          sql`SELECT 1 FROM users WHERE lower(email) = lower(${email})`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )),
        takenDiscriminators: Effect.fn("UsersRepo.takenDiscriminators")((username) =>
          sql<{ discriminator: string }>`SELECT discriminator FROM users WHERE lower(username) = lower(${username})`.pipe(
            Effect.map((rows) => new Set(rows.map((r) => r.discriminator))),
            Effect.orDie
          )),
        insert: Effect.fn("UsersRepo.insert")((user) =>
          sql`
            INSERT INTO users (id, username, discriminator, global_name, email, password_hash, date_of_birth, theme)
            VALUES (${user.id}, ${user.username}, ${user.discriminator}, ${user.globalName}, ${user.email},
                    ${user.passwordHash}, ${user.dateOfBirth}, ${user.theme})
            ON CONFLICT DO NOTHING
            RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie))
      })
    })
  )
}
