import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { unknown } from "../../../src/model/Errors.ts"
import { MAX_SUBSCRIPTIONS, PushSubscriptionsListResponse } from "../../../src/model/PushSubscriptions.ts"
import { read, write } from "../Definitions.ts"
import { laterThan, type PushSubscriptionEntry } from "../Lists.ts"
import type { UserState } from "../State.ts"

/**
 * Web Push subscriptions of the user's devices (Lists.ts: the keys stay in
 * Postgres). One per endpoint: subscribing the same endpoint again refreshes
 * it and keeps its id. The reference sends no gateway event for them.
 */

const withPush = (state: UserState, pushSubscriptions: ReadonlyMap<string, PushSubscriptionEntry>): UserState => ({
  ...state,
  pushSubscriptions
})

export const listPushSubscriptions = read("ListPushSubscriptions", {}, PushSubscriptionsListResponse, (state) =>
  Effect.succeed({
    subscriptions: [...state.pushSubscriptions.values()].map((s) => ({ subscription_id: s.id, user_agent: s.userAgent }))
  }))

/** The ids past the newest MAX_SUBSCRIPTIONS by refresh (ties by id, as Postgres orders them). */
const beyondLimit = (subscriptions: Iterable<PushSubscriptionEntry>) =>
  [...subscriptions]
    .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(MAX_SUBSCRIPTIONS)
    .map((s) => s.id)

/**
 * POST /users/@me/push/subscribe, answered with the subscription's id. `id`
 * is the caller's, taken only by a new endpoint (a decision makes no ids).
 * The caller checked that the session still exists; one signed out before the
 * commit fails its foreign key, and the write is refused (actors/Refusals.ts).
 * Past MAX_SUBSCRIPTIONS, the longest unrefreshed go.
 */
export const subscribePush = write(
  "SubscribePush",
  {
    id: Schema.String,
    /** Hex of the subscribing session's token hash. */
    sessionHash: Schema.String,
    endpoint: Schema.String,
    p256dh: Schema.String,
    auth: Schema.String,
    userAgent: Schema.NullOr(Schema.String)
  },
  Schema.String,
  (state, command, context) => {
    const existing = [...state.pushSubscriptions.values()].find((s) => s.endpoint === command.endpoint)
    const entry: PushSubscriptionEntry = {
      id: existing?.id ?? command.id,
      endpoint: command.endpoint,
      userAgent: command.userAgent ?? existing?.userAgent ?? null,
      sessionHash: command.sessionHash,
      updatedAt: laterThan(context.now, [...state.pushSubscriptions.values()].map((s) => s.updatedAt))
    }
    // A refreshed subscription keeps its place: the list is in the order they were made.
    const subscriptions = new Map(state.pushSubscriptions).set(entry.id, entry)
    const evicted = beyondLimit(subscriptions.values())
    for (const id of evicted) subscriptions.delete(id)
    const at = new Date(entry.updatedAt).toISOString()
    const session = Buffer.from(command.sessionHash, "hex")
    return Effect.succeed({
      next: withPush(state, subscriptions),
      reply: entry.id,
      persist: Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // created_at is the state's clock too, so loading in (created_at, id) order gives the list's order back.
        yield* existing === undefined
          ? sql`INSERT INTO push_subscriptions (id, user_id, session_hash, endpoint, p256dh, auth, user_agent, created_at, updated_at)
                VALUES (${entry.id}, ${context.userId}, ${session}, ${entry.endpoint}, ${command.p256dh}, ${command.auth},
                  ${entry.userAgent}, ${at}, ${at})`
          : sql`UPDATE push_subscriptions SET session_hash = ${session}, p256dh = ${command.p256dh}, auth = ${command.auth},
                  user_agent = ${entry.userAgent}, updated_at = ${at}
                WHERE user_id = ${context.userId} AND id = ${entry.id}`
        if (evicted.length > 0) yield* sql`DELETE FROM push_subscriptions WHERE user_id = ${context.userId} AND id IN ${sql.in(evicted)}`
      }),
      events: []
    })
  }
)

/** DELETE /users/@me/push/subscriptions/{id}: someone else's id reads exactly like an unknown one. */
export const removePushSubscription = write("RemovePushSubscription", { id: Schema.String }, Schema.Null, (state, { id }, context) => {
  if (!state.pushSubscriptions.has(id)) return Effect.fail(unknown("PUSH_SUBSCRIPTION"))
  const subscriptions = new Map(state.pushSubscriptions)
  subscriptions.delete(id)
  return Effect.succeed({
    next: withPush(state, subscriptions),
    reply: null,
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(sql`DELETE FROM push_subscriptions WHERE user_id = ${context.userId} AND id = ${id}`)),
    events: []
  })
})

/**
 * Sessions of the user were signed out (src/auth/Sessions.ts): their
 * subscriptions end. Postgres removed the rows with the sessions (ON DELETE
 * CASCADE), so this changes only the state.
 */
export const endSessionSubscriptions = write(
  "EndSessionSubscriptions",
  { sessionHashes: Schema.Array(Schema.String) },
  Schema.Null,
  (state, { sessionHashes }) => {
    const ended = new Set(sessionHashes)
    const kept = [...state.pushSubscriptions].filter(([, s]) => !ended.has(s.sessionHash))
    const next = kept.length === state.pushSubscriptions.size ? state : withPush(state, new Map(kept))
    return Effect.succeed({ next, reply: null, events: [] })
  }
)

export const pushReads = [listPushSubscriptions] as const
export const pushWrites = [subscribePush, removePushSubscription, endSessionSubscriptions] as const
