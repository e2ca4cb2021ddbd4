import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { UserSettingsResponse } from "../../../src/model/Settings.ts"
import { UserPrivateResponse } from "../../../src/model/Users.ts"
import { toSelf, write } from "../Definitions.ts"
import type { UserState } from "../State.ts"
import { privateView } from "./Account.ts"
import { settingsView } from "./Settings.ts"

/**
 * POST /admin/users/set-acls: the account's operator permissions, replaced
 * whole. The caller checked that the operator may hand them out. The user's
 * sessions hear USER_UPDATE; becoming or ceasing to be staff (any ACL) also
 * changes which stored settings show, so then they hear USER_SETTINGS_UPDATE.
 */
export const setAcls = write("SetAcls", { acls: Schema.Array(Schema.String) }, UserPrivateResponse, (state, { acls }, context) => {
  const unique = [...new Set(acls)]
  const next: UserState = { ...state, account: { ...state.account, acls: unique } }
  const view = privateView(next)
  const staffChanged = (state.account.acls.length > 0) !== (unique.length > 0)
  return Effect.succeed({
    next,
    reply: view,
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(sql`UPDATE users SET acls = ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(unique)}::jsonb))
                        WHERE id = ${context.userId}`)),
    events: [
      toSelf(context, "USER_UPDATE", Schema.encodeSync(UserPrivateResponse)(view)),
      ...(staffChanged
        ? [toSelf(context, "USER_SETTINGS_UPDATE", Schema.encodeSync(UserSettingsResponse)(settingsView(next, new Date(context.now))))]
        : [])
    ]
  })
})

export const adminWrites = [setAcls] as const
