import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { field, type Reply, TestApi } from "../support/Api.ts"

export type User = { readonly token: string; readonly userId: string }

export const request = (method: string, path: string, token: string, body?: unknown) =>
  Effect.flatMap(TestApi, (api) => api.request(method, path, { token, body }))

/** A fresh user with a username of their own. */
export const user = Effect.flatMap(TestApi, (api) => api.register({ username: `u_${randomUUID().slice(0, 8)}` }))

/** The reply's body, once it is known to have the status. */
export const ok = (reply: Reply, status = 200) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  return reply.body
}

/** The DM channel between the two users (opened by `from`): its id. */
export const openDm = (from: User, to: User) =>
  Effect.map(request("POST", "/users/@me/channels", from.token, { recipient_id: to.userId }), (reply) => field(ok(reply), "id"))
