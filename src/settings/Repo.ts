import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { StoredSettings } from "./Schemas.ts"

/** What the settings of a user are computed from. */
export interface SettingsRow {
  readonly theme: string
  readonly locale: string
  readonly date_of_birth: Date | string | null
  readonly staff: boolean
  /** `user_settings.data` (null without a row), to be decoded. */
  readonly data: unknown
}

/**
 * Settings storage: the user's changes in `user_settings.data` (jsonb, merged
 * key by key), theme and locale in `users`.
 */
export class SettingsRepo extends Context.Service<SettingsRepo, {
  readonly read: (userId: string) => Effect.Effect<SettingsRow | undefined>
  readonly write: (userId: string, changes: StoredSettings, theme: string | undefined, locale: string | undefined) => Effect.Effect<void>
}>()("guildhall/SettingsRepo") {
  static readonly layer = Layer.effect(
    SettingsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return SettingsRepo.of({
        read: Effect.fn("SettingsRepo.read")((userId) =>
          sql<SettingsRow>`
            SELECT u.theme, u.locale, u.date_of_birth, cardinality(u.acls) > 0 AS staff, s.data
            FROM users u LEFT JOIN user_settings s ON s.user_id = u.id
            WHERE u.id = ${userId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)),
        write: Effect.fn("SettingsRepo.write")((userId, changes, theme, locale) =>
          sql.withTransaction(Effect.gen(function*() {
            if (theme !== undefined || locale !== undefined) {
              yield* sql`UPDATE users SET theme = COALESCE(${theme ?? null}, theme), locale = COALESCE(${locale ?? null}, locale)
                         WHERE id = ${userId}`
            }
            yield* sql`
              INSERT INTO user_settings (user_id, data) VALUES (${userId}, ${JSON.stringify(changes)}::jsonb)
              ON CONFLICT (user_id) DO UPDATE SET data = user_settings.data || EXCLUDED.data, updated_at = now()`
          })).pipe(Effect.orDie))
      })
    })
  )
}
