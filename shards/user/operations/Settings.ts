import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest } from "../../../src/model/Errors.ts"
import { UserSettingsResponse, UserSettingsUpdateRequest } from "../../../src/model/Settings.ts"
import { isAdult, present, toStored } from "../../../src/model/SettingsValues.ts"
import { read, toSelf, write } from "../Definitions.ts"
import { rowsTable } from "../../actors/RowColumns.ts"
import type { RowSink } from "../../actors/Rows.ts"
import type { UserState } from "../State.ts"

/**
 * `user_settings` of the actor's user: its whole stored settings as the batch's
 * last write left them (the state is the truth), so a burst of changes from a
 * user's devices commits as one row in one statement.
 */
const storedSettings: RowSink = {
  name: "user_settings",
  statements: (sql, userId, rows) => [sql`
    INSERT INTO user_settings (user_id, data)
    SELECT ${userId}::bigint, v.data::jsonb FROM ${rowsTable(sql, rows, ["data"])}
    ON CONFLICT (user_id) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`]
}

const encodeSettings = Schema.encodeSync(UserSettingsResponse)

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
      const accountChanged = change.theme !== undefined || change.locale !== undefined
      const next: UserState = {
        ...state,
        account: accountChanged
          ? { ...state.account, theme: change.theme ?? state.account.theme, locale: change.locale ?? state.account.locale }
          : state.account,
        settings: { ...state.settings, ...change.stored }
      }
      const view = settingsView(next, now)
      // Encoded once, for the answer and the event alike: a burst of writes decides one after another.
      const encoded = encodeSettings(view)
      return {
        next,
        reply: view,
        replyJson: JSON.stringify(encoded),
        rows: [{ sink: storedSettings, key: context.userId, values: [JSON.stringify(next.settings)] }],
        // Theme and locale are the account's columns, changed rarely.
        persist: !accountChanged ? undefined : Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.asVoid(sql`UPDATE users SET theme = COALESCE(${change.theme ?? null}, theme), locale = COALESCE(${change.locale ?? null}, locale)
                            WHERE id = ${context.userId}`)),
        events: [toSelf(context, "USER_SETTINGS_UPDATE", encoded)]
      }
    })
)

export const settingsReads = [getSettings] as const
export const settingsWrites = [updateSettings] as const
