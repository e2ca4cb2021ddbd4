import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"

/** A new invite into `channelId`; its code. */
export const createInvite = (token: string, channelId: string, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", `/channels/${channelId}/invites`, { token, body: { unique: true, ...body } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "code")
  })

/** Polls `/users/@me/guilds` until `check` holds: the user actor hears of joins and bans after the reply. */
export const eventuallyGuilds = (token: string, check: (ids: ReadonlyArray<string>) => boolean) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    let ids: ReadonlyArray<string> = []
    for (let attempt = 0; attempt < 20; attempt++) {
      const list = yield* api.request("GET", "/users/@me/guilds", { token })
      ids = (list.body as ReadonlyArray<{ id: string }>).map((g) => g.id)
      if (check(ids)) return ids
      yield* Effect.sleep("100 millis")
    }
    return ids
  })

/** An owner with a guild, and a second user who joined it through an invite (its code). */
export const guildOfTwo = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const member = yield* api.register()
  const { guildId, channelId } = yield* createGuild(owner.token)
  const code = yield* createInvite(owner.token, channelId)
  const joined = yield* api.request("POST", `/invites/${code}`, { token: member.token })
  assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
  return { api, owner, member, guildId, code }
})
