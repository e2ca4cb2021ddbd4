import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { UserPrivateResponse } from "../../../src/model/Users.ts"
import { toUserPrivate } from "../AccountView.ts"
import { toJson } from "../../actors/Definitions.ts"
import { read, toSelf, write } from "../Definitions.ts"
import type { UserState } from "../State.ts"

// Every client starts with GET /users/@me: each state's view and its JSON are made once, on first ask.
const views = new WeakMap<UserState, UserPrivateResponse>()
const rendered = new WeakMap<UserPrivateResponse, string>()
const encodeView = toJson(UserPrivateResponse)

/** GET /users/@me, READY's `user` and USER_UPDATE: one object, so a client replaces what it holds. */
export const privateView = (state: UserState): UserPrivateResponse => {
  const known = views.get(state)
  if (known !== undefined) return known
  const view = toUserPrivate(state.account, state.authenticatorTypes, state.pendingDeletion)
  views.set(state, view)
  return view
}

/** The view's JSON, as encoding it with UserPrivateResponse gives. */
export const privateViewJson = (view: UserPrivateResponse): string => {
  const known = rendered.get(view)
  if (known !== undefined) return known
  const json = encodeView(view)
  rendered.set(view, json)
  return json
}

export const getAccount = read("GetAccount", {}, UserPrivateResponse, (state) => Effect.succeed(privateView(state)), privateViewJson)

const Text = Schema.NullOr(Schema.String)

/** What PATCH /users/@me checks a request against (src/users/Updates.ts). */
export const AccountBasics = Schema.Struct({
  username: Schema.String,
  discriminator: Schema.String,
  email: Text,
  staff: Schema.Boolean,
  premium_flags: Schema.Int
})
export type AccountBasics = typeof AccountBasics.Type

export const getAccountBasics = read("GetAccountBasics", {}, AccountBasics, ({ account }) =>
  Effect.succeed({
    username: account.username,
    discriminator: account.discriminator,
    email: account.email,
    staff: account.acls.length > 0,
    premium_flags: account.premium_flags ?? 0
  }))

/** Columns of `users` PATCH /users/@me writes, checked by the caller (src/users/Updates.ts). */
export const AccountChanges = Schema.Struct({
  username: Schema.optionalKey(Schema.String),
  discriminator: Schema.optionalKey(Schema.String),
  global_name: Schema.optionalKey(Text),
  avatar: Schema.optionalKey(Text),
  banner: Schema.optionalKey(Text),
  bio: Schema.optionalKey(Text),
  pronouns: Schema.optionalKey(Text),
  accent_color: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  timezone: Schema.optionalKey(Text),
  timezone_privacy_flags: Schema.optionalKey(Schema.Int),
  premium_flags: Schema.optionalKey(Schema.Int),
  mention_flags: Schema.optionalKey(Schema.Int)
})
export type AccountChanges = typeof AccountChanges.Type

/** `changes` without its absent keys: an absent key is no change, never `SET column = NULL`. */
export const presentChanges = (changes: AccountChanges): AccountChanges =>
  Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))

/**
 * PATCH /users/@me, once the caller checked the request, settled the tag and
 * hashed a new password. The hash is written and forgotten: the state keeps
 * only when the password changed. A tag taken meanwhile is refused by the
 * unique index (400). The user's sessions hear USER_UPDATE.
 */
export const updateAccount = write(
  "UpdateAccount",
  { changes: AccountChanges, passwordHash: Schema.optionalKey(Schema.String) },
  UserPrivateResponse,
  (state, command, context) => {
    const { passwordHash } = command
    const changes = presentChanges(command.changes)
    const changedAt = new Date(context.now)
    const next: UserState = {
      ...state,
      account: { ...state.account, ...changes, ...(passwordHash === undefined ? {} : { password_changed_at: changedAt }) }
    }
    const set = { ...changes, ...(passwordHash === undefined ? {} : { password_hash: passwordHash, password_changed_at: changedAt }) }
    const view = privateView(next)
    return Effect.succeed({
      next,
      reply: view,
      persist: Object.keys(set).length === 0
        ? undefined
        : Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`UPDATE users SET ${sql.update(set)} WHERE id = ${context.userId}`)),
      events: [toSelf(context, "USER_UPDATE", Schema.encodeSync(UserPrivateResponse)(view))]
    })
  }
)

export const accountReads = [getAccount, getAccountBasics] as const
export const accountWrites = [updateAccount] as const
