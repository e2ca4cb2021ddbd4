import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CarriedId, type GuildId } from "../model/Ids.ts"

/** An application with its bot user's profile; bigint columns arrive as strings. */
export interface ApplicationRow {
  readonly id: string
  readonly owner_id: string
  readonly name: string
  readonly bot_public: boolean
  readonly bot_require_code_grant: boolean
  readonly redirect_uris: ReadonlyArray<string>
  readonly bot_flags: number
  readonly username: string
  readonly discriminator: string
  readonly avatar: string | null
  readonly banner: string | null
  readonly bio: string | null
}

export interface NewApplication {
  readonly id: string
  readonly ownerId: string
  readonly name: string
  readonly botPublic: boolean
  readonly botRequireCodeGrant: boolean
  readonly redirectUris: ReadonlyArray<string>
  readonly clientSecretHash: string
  readonly botTokenHash: string
  readonly botUsername: string
  readonly botDiscriminator: string
}

/** Columns of `applications` an update may write. */
export interface ApplicationChanges {
  readonly name?: string | undefined
  readonly bot_public?: boolean | undefined
  readonly bot_require_code_grant?: boolean | undefined
  readonly redirect_uris?: ReadonlyArray<string> | undefined
  readonly bot_flags?: number | undefined
  readonly client_secret_hash?: string | undefined
  readonly bot_token_hash?: string | undefined
}

/** `applications` and the bot users beside them. */
export class ApplicationsRepo extends Context.Service<ApplicationsRepo, {
  /** The application and its bot user, in one transaction; false when the bot's tag was taken meanwhile. */
  readonly insert: (application: NewApplication) => Effect.Effect<boolean>
  readonly find: (id: string) => Effect.Effect<ApplicationRow | undefined>
  /** The owner's applications, oldest first. */
  readonly ownedBy: (ownerId: string) => Effect.Effect<ReadonlyArray<ApplicationRow>>
  readonly update: (id: string, changes: ApplicationChanges) => Effect.Effect<void>
  /** Deletes the application (its codes and tokens go with it); its bot user stays. */
  readonly remove: (id: string) => Effect.Effect<void>
  /** The guilds the application's bot is a member of. */
  readonly botGuilds: (id: string) => Effect.Effect<ReadonlyArray<GuildId>>
  /** The argon2id hashes of the client secret and the bot token's secret. */
  readonly secrets: (id: string) => Effect.Effect<{ clientSecretHash: string; botTokenHash: string } | undefined>
}>()("guildhall/ApplicationsRepo") {
  static readonly layer = Layer.effect(
    ApplicationsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const select = sql`
        SELECT a.id, a.owner_id, a.name, a.bot_public, a.bot_require_code_grant, a.redirect_uris, a.bot_flags,
               u.username, u.discriminator, u.avatar, u.banner, u.bio
        FROM applications a JOIN users u ON u.id = a.id`

      const insert = Effect.fn("ApplicationsRepo.insert")((a: NewApplication) =>
        sql.withTransaction(Effect.gen(function*() {
          const bot = yield* sql`
            INSERT INTO users (id, username, discriminator, bot) VALUES (${a.id}, ${a.botUsername}, ${a.botDiscriminator}, true)
            ON CONFLICT DO NOTHING RETURNING id`
          if (bot.length === 0) return false
          yield* sql`
            INSERT INTO applications (id, owner_id, name, bot_public, bot_require_code_grant, redirect_uris,
                                      client_secret_hash, bot_token_hash)
            VALUES (${a.id}, ${a.ownerId}, ${a.name}, ${a.botPublic}, ${a.botRequireCodeGrant},
                    ${[...a.redirectUris]}::text[], ${a.clientSecretHash}, ${a.botTokenHash})`
          return true
        })).pipe(Effect.orDie))

      const update = Effect.fn("ApplicationsRepo.update")((id: string, changes: ApplicationChanges) => {
        const { redirect_uris, ...plain } = changes
        // An absent key is no change: it must not become `SET column = NULL`.
        const set = Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== undefined))
        return Effect.gen(function*() {
          if (Object.keys(set).length > 0) yield* sql`UPDATE applications SET ${sql.update(set)} WHERE id = ${id}`
          if (redirect_uris !== undefined) {
            yield* sql`UPDATE applications SET redirect_uris = ${[...redirect_uris]}::text[] WHERE id = ${id}`
          }
        }).pipe(Effect.orDie)
      })

      return ApplicationsRepo.of({
        insert,
        find: Effect.fn("ApplicationsRepo.find")((id) =>
          sql<ApplicationRow>`${select} WHERE a.id = ${id}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)),
        ownedBy: Effect.fn("ApplicationsRepo.ownedBy")((ownerId) =>
          sql<ApplicationRow>`${select} WHERE a.owner_id = ${ownerId} ORDER BY a.id`.pipe(Effect.orDie)),
        update,
        remove: Effect.fn("ApplicationsRepo.remove")((id) =>
          sql`DELETE FROM applications WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)),
        botGuilds: Effect.fn("ApplicationsRepo.botGuilds")((id) =>
          sql<{ guild_id: string }>`SELECT guild_id FROM guild_members WHERE user_id = ${id}`.pipe(
            Effect.map((rows) => rows.map((row) => CarriedId.GuildId.make(String(row.guild_id)))),
            Effect.orDie
          )),
        secrets: Effect.fn("ApplicationsRepo.secrets")((id) =>
          sql<{ client_secret_hash: string; bot_token_hash: string }>`
            SELECT client_secret_hash, bot_token_hash FROM applications WHERE id = ${id}`.pipe(
            Effect.map((rows) => {
              const row = rows[0]
              return row === undefined ? undefined : { clientSecretHash: row.client_secret_hash, botTokenHash: row.bot_token_hash }
            }),
            Effect.orDie
          ))
      })
    })
  )
}
