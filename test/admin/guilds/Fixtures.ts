import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "../../support/Api.ts"
import { createGuild } from "../../support/Cast.ts"
import { createInvite } from "../../invites/Fixtures.ts"

/** The operator's key as an Authorization header. */
export const adminToken = Effect.map(TestApi, (api) => `Admin ${api.adminKey}`)

/** POST `path` as the test API's operator (a `*` key). */
export const asAdmin = (path: string, body: unknown) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    return yield* api.request("POST", path, { token: yield* adminToken, body })
  })

/** `asAdmin`, failing the test unless it answers `status`; the body. */
export const adminOk = (path: string, body: unknown, status = 200) =>
  Effect.map(asAdmin(path, body), (reply) => {
    assert.strictEqual(reply.status, status, `${path}: ${JSON.stringify(reply.body)}`)
    return reply.body
  })

/** The id the operator's key acts as (what audit logs record). */
export const operatorId = Effect.gen(function*() {
  const api = yield* TestApi
  const me = yield* api.request("GET", "/admin/users/me", { token: yield* adminToken })
  return field((me.body as { user: unknown }).user, "id")
})

/** An owner's guild named `name` with `joiners` more users who came in by invite. */
export const guildWith = (joiners: number, name = "The Hall") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const owner = yield* api.register()
    const { guildId, channelId } = yield* createGuild(owner.token, name)
    const code = yield* createInvite(owner.token, channelId)
    const members: Array<{ token: string; userId: string }> = []
    for (let i = 0; i < joiners; i++) {
      const member = yield* api.register()
      const joined = yield* api.request("POST", `/invites/${code}`, { token: member.token })
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
      members.push(member)
    }
    return { api, owner, members, guildId, channelId }
  })

/** The admin audit log's entries about `targetId`. */
export const adminLogs = (targetId: string) =>
  Effect.map(adminOk("/admin/audit-logs", { target_id: targetId, limit: 100 }), (body) =>
    (body as {
      logs: ReadonlyArray<{ action: string; admin_user_id: string; audit_log_reason: string | null; metadata: Record<string, string> }>
    }).logs)
