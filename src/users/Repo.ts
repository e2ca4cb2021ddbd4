import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { UserRow } from "../model/Users.ts"


/** Columns of `users` a profile update may write. */
export type UserChanges = {
  readonly username?: string
  readonly discriminator?: string
  readonly global_name?: string | null
  readonly password_hash?: string
  readonly password_changed_at?: Date
  readonly avatar?: string | null
  readonly banner?: string | null
  readonly bio?: string | null
  readonly pronouns?: string | null
  readonly accent_color?: number | null
  readonly timezone?: string | null
  readonly timezone_privacy_flags?: number
  readonly premium_flags?: number
  readonly mention_flags?: number
}

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


export class UsersRepo extends Context.Service<UsersRepo, {
  readonly findById: (id: string) => Effect.Effect<UserRow | undefined>
  readonly findByEmail: (email: string) => Effect.Effect<UserRow | undefined>
  readonly emailTaken: (email: string) => Effect.Effect<boolean>
  readonly takenDiscriminators: (username: string) => Effect.Effect<ReadonlySet<string>>
  /** False when the email or the username#discriminator was taken meanwhile. */
  readonly insert: (user: NewUser) => Effect.Effect<boolean>
  /** Writes the given columns; false when the new username#discriminator was taken meanwhile. */
  readonly update: (id: string, changes: UserChanges) => Effect.Effect<boolean>
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
            RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)),
        update: Effect.fn("UsersRepo.update")((id, changes) => {
          // An absent key is no change: it must not become `SET column = NULL`.
          const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
          if (Object.keys(set).length === 0) return Effect.succeed(true)
          return sql`UPDATE users SET ${sql.update(set)} WHERE id = ${id}`.pipe(
            Effect.as(true),
            Effect.catchIf((error) => error.reason._tag === "UniqueViolation", () => Effect.succeed(false)),
            Effect.orDie
          )
        })
      })
    })
  )
}
