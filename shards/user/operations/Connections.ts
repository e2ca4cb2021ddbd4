import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import {
  connectionAlreadyExists,
  connectionLimitReached,
  connectionNotFound,
  ConnectionResponse,
  ConnectionType,
  MAX_CONNECTIONS
} from "../../../src/model/Connections.ts"
import { read, toSelf, type UserContext, type UserEvent, write } from "../Definitions.ts"
import { byId, type ConnectionEntry } from "../Lists.ts"
import type { UserState } from "../State.ts"

/**
 * The user's account connections. Proving an account (a DNS record, a profile's
 * text) is the caller's (src/connections): a write is told what the check found.
 * Every change tells the user's sessions USER_CONNECTIONS_UPDATE, with the list
 * as GET /users/@me/connections shows it.
 */

/** In the order the list shows them: sort_order, then age. */
const ordered = (state: UserState): ReadonlyArray<ConnectionEntry> =>
  [...state.connections.values()].sort((a, b) => a.view.sort_order - b.view.sort_order || byId(a.view.id, b.view.id))

const listOf = (state: UserState) => ordered(state).map((entry) => entry.view)

/** The connection `id` of `type`: another type's id under this one is as unknown as a made-up one. */
const find = (state: UserState, type: ConnectionType, id: string) => {
  const entry = state.connections.get(id)
  return entry === undefined || entry.view.type !== type ? Effect.fail(connectionNotFound()) : Effect.succeed(entry)
}

const updated = (context: UserContext, next: UserState): ReadonlyArray<UserEvent> => [
  toSelf(context, "USER_CONNECTIONS_UPDATE", { connections: Schema.encodeSync(Schema.Array(ConnectionResponse))(listOf(next)) })
]

const withConnections = (state: UserState, connections: ReadonlyMap<string, ConnectionEntry>): UserState => ({ ...state, connections })

const persisting = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError.SqlError>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(statement(sql)))

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export const listConnections = read("ListConnections", {}, Schema.Array(ConnectionResponse), (state) =>
  Effect.sync(() => listOf(state)))

/** A connection with the string whose presence proves it, for re-verifying it. */
export const connectionProof = read(
  "ConnectionProof",
  { type: ConnectionType, id: Schema.String },
  Schema.Struct({ connection: ConnectionResponse, proof: Schema.String }),
  (state, { type, id }) => Effect.map(find(state, type, id), (entry) => ({ connection: entry.view, proof: entry.proof }))
)

/**
 * POST /users/@me/connections/verify, once the caller found `proof` published
 * for the account: the connection, verified, last in the list. The same
 * account twice, or more than MAX_CONNECTIONS, is refused here, where the list is.
 */
export const addConnection = write(
  "AddConnection",
  { id: Schema.String, type: ConnectionType, name: Schema.String, proof: Schema.String, visibilityFlags: Schema.Int },
  ConnectionResponse,
  (state, c, context) => {
    const existing = [...state.connections.values()]
    if (existing.some((e) => e.view.type === c.type && e.view.name === c.name)) return Effect.fail(connectionAlreadyExists())
    if (existing.length >= MAX_CONNECTIONS) return Effect.fail(connectionLimitReached())
    const view: ConnectionResponse = {
      id: c.id,
      type: c.type,
      name: c.name,
      verified: true,
      visibility_flags: c.visibilityFlags,
      sort_order: existing.reduce((highest, e) => Math.max(highest, e.view.sort_order + 1), 0)
    }
    const next = withConnections(state, new Map(state.connections).set(c.id, { view, proof: c.proof, verifiedAt: context.now }))
    return Effect.succeed({
      next,
      reply: view,
      persist: persisting((sql) =>
        sql`INSERT INTO user_connections (id, user_id, type, name, proof, verified, verified_at, visibility_flags, sort_order)
          VALUES (${c.id}, ${context.userId}, ${c.type}, ${c.name}, ${c.proof}, true, ${iso(context.now)}, ${view.visibility_flags},
            ${view.sort_order})`),
      events: updated(context, next)
    })
  }
)

/** POST /users/@me/connections/{type}/{id}/verify: what checking the proof again found. */
export const setConnectionVerified = write(
  "SetConnectionVerified",
  { type: ConnectionType, id: Schema.String, verified: Schema.Boolean },
  ConnectionResponse,
  (state, { type, id, verified }, context) =>
    Effect.map(find(state, type, id), (entry) => {
      const view = { ...entry.view, verified }
      const verifiedAt = verified ? context.now : null
      const next = withConnections(state, new Map(state.connections).set(id, { ...entry, view, verifiedAt }))
      return {
        next,
        reply: view,
        persist: persisting((sql) =>
          sql`UPDATE user_connections SET verified = ${verified}, verified_at = ${iso(verifiedAt)}
            WHERE user_id = ${context.userId} AND id = ${id}`),
        events: updated(context, next)
      }
    })
)

/** PATCH /users/@me/connections/{type}/{id}: either field, or both; null leaves it as it is. */
export const updateConnection = write(
  "UpdateConnection",
  { type: ConnectionType, id: Schema.String, sortOrder: Schema.NullOr(Schema.Int), visibilityFlags: Schema.NullOr(Schema.Int) },
  Schema.Null,
  (state, { type, id, sortOrder, visibilityFlags }, context) =>
    Effect.map(find(state, type, id), (entry) => {
      const view = {
        ...entry.view,
        sort_order: sortOrder ?? entry.view.sort_order,
        visibility_flags: visibilityFlags ?? entry.view.visibility_flags
      }
      const next = withConnections(state, new Map(state.connections).set(id, { ...entry, view }))
      return {
        next,
        reply: null,
        persist: persisting((sql) =>
          sql`UPDATE user_connections SET sort_order = ${view.sort_order}, visibility_flags = ${view.visibility_flags}
            WHERE user_id = ${context.userId} AND id = ${id}`),
        events: updated(context, next)
      }
    })
)

/**
 * PATCH /users/@me/connections/reorder: `ids` first, in their order (sort_order
 * 0, 1, ...); connections it leaves out follow, in the order they had.
 */
export const reorderConnections = write("ReorderConnections", { ids: Schema.Array(Schema.String) }, Schema.Null, (state, { ids }, context) => {
  if (ids.some((id) => !state.connections.has(id))) return Effect.fail(connectionNotFound())
  const named = new Set(ids)
  const order = [...ids, ...ordered(state).map((e) => e.view.id).filter((id) => !named.has(id))]
  const connections = new Map(state.connections)
  order.forEach((id, sortOrder) => {
    const entry = connections.get(id)
    if (entry !== undefined) connections.set(id, { ...entry, view: { ...entry.view, sort_order: sortOrder } })
  })
  const next = withConnections(state, connections)
  return Effect.succeed({
    next,
    reply: null,
    persist: Effect.forEach(order, (id, sortOrder) =>
      persisting((sql) => sql`UPDATE user_connections SET sort_order = ${sortOrder} WHERE user_id = ${context.userId} AND id = ${id}`), {
      discard: true
    }),
    events: updated(context, next)
  })
})

/** DELETE /users/@me/connections/{type}/{id}. */
export const removeConnection = write(
  "RemoveConnection",
  { type: ConnectionType, id: Schema.String },
  Schema.Null,
  (state, { type, id }, context) =>
    Effect.map(find(state, type, id), () => {
      const connections = new Map(state.connections)
      connections.delete(id)
      const next = withConnections(state, connections)
      return {
        next,
        reply: null,
        persist: persisting((sql) => sql`DELETE FROM user_connections WHERE user_id = ${context.userId} AND id = ${id}`),
        events: updated(context, next)
      }
    })
)

export const connectionsReads = [listConnections, connectionProof] as const
export const connectionsWrites = [addConnection, setConnectionVerified, updateConnection, reorderConnections, removeConnection] as const
