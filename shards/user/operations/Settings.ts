import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest } from "../../../src/model/Errors.ts"
import { UserSettingsResponse, UserSettingsUpdateRequest } from "../../../src/model/Settings.ts"
import { isAdult, present, toStored } from "../../../src/model/SettingsValues.ts"
import { read, toSelf, write } from "../Definitions.ts"
import type { UserState } from "../State.ts"

/** The settings as GET /users/@me/settings shows them at `now`. */
export const settingsView = (state: UserState, now: Date): UserSettingsResponse => {
  const { account } = state
  return present(state.settings, {
    theme: account.theme ?? "system",
    locale: account.locale ?? "en-US",
    adult: isAdult(account.date_of_birth, now),
    staff: account.acls.length > 0
  }, now)
}

export const getSettings = read("GetSettings", {}, UserSettingsResponse, (state) => Effect.succeed(settingsView(state, new Date())))

/**
 * PATCH /users/@me/settings: the changed keys are merged into what is stored
 * (theme and locale are the account's columns). The user's sessions hear
 * USER_SETTINGS_UPDATE with the whole settings, as GET shows them.
 */
export const updateSettings = write(
  "UpdateSettings",
  { body: UserSettingsUpdateRequest },
  UserSettingsResponse,
  (state, { body }, context) =>
    Effect.gen(function*() {
      const now = new Date(context.now)
      const change = toStored(body, state.account.acls.length > 0, now)
      if (change.problems.length > 0) {
        return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: change.problems })
      }
      const next: UserState = {
        ...state,
        account: {
          ...state.account,
          ...(change.theme === undefined ? {} : { theme: change.theme }),
          ...(change.locale === undefined ? {} : { locale: change.locale })
        },
        settings: { ...state.settings, ...change.stored }
      }
      const view = settingsView(next, now)
      return {
        next,
        reply: view,
        persist: Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          if (change.theme !== undefined || change.locale !== undefined) {
            yield* sql`UPDATE users SET theme = COALESCE(${change.theme ?? null}, theme), locale = COALESCE(${change.locale ?? null}, locale)
                       WHERE id = ${context.userId}`
          }
          yield* sql`
            INSERT INTO user_settings (user_id, data) VALUES (${context.userId}, ${JSON.stringify(change.stored)}::jsonb)
            ON CONFLICT (user_id) DO UPDATE SET data = user_settings.data || EXCLUDED.data, updated_at = now()`
        }),
        events: [toSelf(context, "USER_SETTINGS_UPDATE", Schema.encodeSync(UserSettingsResponse)(view))]
      }
    })
)

export const settingsReads = [getSettings] as const
export const settingsWrites = [updateSettings] as const
