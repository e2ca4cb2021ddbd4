import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { invalidField } from "../../../src/model/Errors.ts"
import { withUserFlags } from "../../../src/model/UserFlags.ts"
import { UserPrivateResponse } from "../../../src/model/Users.ts"
import type { Account } from "../AccountView.ts"
import { type Decision, toSelf, type UserContext, write } from "../Definitions.ts"
import type { UserState } from "../State.ts"
import { privateView } from "./Account.ts"

/**
 * Operators' changes of an account's identity and profile (src/admin/users/ProfileHttp.ts).
 * The caller checked what needs Postgres (a free tag or address) and the request's
 * form; these decide from the state. Each answers the private user and tells the
 * user's sessions (USER_UPDATE); the caller tells the guilds of a changed partial user.
 */

type Column = string | number | boolean | null

/** `account` over the state's, `columns` written to `users`: the decision every operation here makes. */
const changed = (
  state: UserState,
  context: UserContext,
  account: Partial<Account>,
  columns: Readonly<Record<string, Column>>
): Decision<UserPrivateResponse> => {
  const next: UserState = { ...state, account: { ...state.account, ...account } }
  const view = privateView(next)
  return {
    next,
    reply: view,
    persist: Object.keys(columns).length === 0
      ? undefined
      : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`UPDATE users SET ${sql.update(columns)} WHERE id = ${context.userId}`)),
    events: [toSelf(context, "USER_UPDATE", Schema.encodeSync(UserPrivateResponse)(view))]
  }
}

/** POST /admin/users/change-username: the tag the caller found free; a tag taken meanwhile is CONFLICT (unique index). */
export const adminChangeTag = write(
  "AdminChangeTag",
  { username: Schema.String, discriminator: Schema.String },
  UserPrivateResponse,
  (state, { username, discriminator }, context) =>
    Effect.succeed(changed(state, context, { username, discriminator }, { username, discriminator }))
)

/** POST /admin/users/change-email: a new address is not verified, and has not bounced. */
export const adminChangeEmail = write("AdminChangeEmail", { email: Schema.String }, UserPrivateResponse, (state, { email }, context) =>
  Effect.succeed(changed(
    state,
    context,
    { email, email_verified: false, email_bounced: false },
    { email, email_verified: false, email_bounced: false }
  )))

/** POST /admin/users/verify-email. */
export const adminVerifyEmail = write("AdminVerifyEmail", {}, UserPrivateResponse, (state, _command, context) =>
  Effect.succeed(changed(state, context, { email_verified: true }, { email_verified: true })))

/** POST /admin/users/change-dob: YYYY-MM-DD, checked by the caller. */
export const adminSetDateOfBirth = write(
  "AdminSetDateOfBirth",
  { dateOfBirth: Schema.String },
  UserPrivateResponse,
  (state, { dateOfBirth }, context) =>
    Effect.succeed(changed(state, context, { date_of_birth: dateOfBirth }, { date_of_birth: dateOfBirth }))
)

/** The profile fields an operator may clear (POST /admin/users/clear-fields). */
export const ClearableField = Schema.Literals(["avatar", "banner", "bio", "pronouns", "global_name"])

export const adminClearFields = write(
  "AdminClearFields",
  { fields: Schema.Array(ClearableField) },
  UserPrivateResponse,
  (state, { fields }, context) => {
    const cleared = Object.fromEntries(fields.map((field) => [field, null]))
    return Effect.succeed(changed(state, context, cleared, cleared))
  }
)

/** POST /admin/users/update-flags and the bulk one: UserFlags values (decimal text), added then removed. */
export const adminUpdateFlags = write(
  "AdminUpdateFlags",
  { add: Schema.Array(Schema.String), remove: Schema.Array(Schema.String) },
  UserPrivateResponse,
  (state, { add, remove }, context) => {
    const flags = withUserFlags(state.account.flags, add, remove)
    return Effect.succeed(changed(state, context, { flags }, { flags }))
  }
)

/** POST /admin/users/set-traits: replaced whole. */
export const adminSetTraits = write(
  "AdminSetTraits",
  { traits: Schema.Array(Schema.String) },
  UserPrivateResponse,
  (state, { traits }, context) => {
    const unique = [...new Set(traits)]
    const decision = changed(state, context, { traits: unique }, {})
    return Effect.succeed({
      ...decision,
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`UPDATE users SET traits = ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(unique)}::jsonb))
                          WHERE id = ${context.userId}`))
    })
  }
)

/** POST /admin/users/set-bot-status: an account that stops being a bot stops being a system account too. */
export const adminSetBot = write("AdminSetBot", { bot: Schema.Boolean }, UserPrivateResponse, (state, { bot }, context) => {
  const account: { bot: boolean; system?: boolean } = bot ? { bot } : { bot, system: false }
  return Effect.succeed(changed(state, context, account, account))
})

/** POST /admin/users/set-system-status: only a bot may be the instance's own voice. */
export const adminSetSystem = write("AdminSetSystem", { system: Schema.Boolean }, UserPrivateResponse, (state, { system }, context) =>
  system && !state.account.bot
    ? Effect.fail(invalidField("system", "INVALID_FORM_BODY", "User must be a bot to be marked as a system user"))
    : Effect.succeed(changed(state, context, { system }, { system })))

/** POST /admin/users/unlink-phone: the number and its verification go. */
export const adminUnlinkPhone = write("AdminUnlinkPhone", {}, UserPrivateResponse, (state, _command, context) =>
  Effect.succeed(changed(state, context, { phone: null, phone_verified_at: null }, { phone: null, phone_verified_at: null })))

export const adminProfileWrites = [
  adminChangeTag,
  adminChangeEmail,
  adminVerifyEmail,
  adminSetDateOfBirth,
  adminClearFields,
  adminUpdateFlags,
  adminSetTraits,
  adminSetBot,
  adminSetSystem,
  adminUnlinkPhone
] as const
