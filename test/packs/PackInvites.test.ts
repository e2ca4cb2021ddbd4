import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createInvite } from "../invites/Fixtures.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

/** A new pack of `type` by the token's user and an invite to it; the pack's id and the invite's code. */
const packWithInvite = (token: string, type: "emoji" | "sticker", invite: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const pack = yield* api.request("POST", `/packs/${type}`, { token, body: { name: "Shared pack" } })
    assert.strictEqual(pack.status, 200, JSON.stringify(pack.body))
    const packId = field(pack.body, "id")
    const created = yield* api.request("POST", `/packs/${packId}/invites`, { token, body: invite })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    return { packId, code: field(created.body, "code") }
  })

const installedPackIds = (token: string, type: "emoji" | "sticker") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const dashboard = yield* api.request("GET", "/packs", { token })
    const kind = (dashboard.body as Record<string, { installed: ReadonlyArray<{ id: string }> }>)[type]
    return (kind?.installed ?? []).map((p) => p.id)
  })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("pack invites at /invites/{code}", (it) => {
  it.effect("shows a pack invite to anyone and installs the pack for whoever accepts it, until its uses run out", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const creator = yield* api.register()
      const [first, second, third] = [yield* api.register(), yield* api.register(), yield* api.register()]
      const { packId, code } = yield* packWithInvite(creator.token, "sticker", { max_uses: 2 })
      assert.match(code, /^[A-Za-z0-9]{8}$/)

      const shown = yield* api.request("GET", `/invites/${code}`)
      assert.strictEqual(shown.status, 200, JSON.stringify(shown.body))
      expect(shown.body).toMatchObject({
        code,
        type: 3,
        pack: { id: packId, name: "Shared pack", type: "sticker", creator_id: creator.userId, creator: { id: creator.userId } },
        inviter: { id: creator.userId },
        temporary: false
      })
      field(shown.body, "expires_at")
      assert.isUndefined((shown.body as Record<string, unknown>).uses)

      const locked = yield* api.request("GET", `/packs/stickers/${packId}`, { token: first.token })
      expectError(locked, 403, "PACK_ACCESS_DENIED")
      const accepted = yield* api.request("POST", `/invites/${code}`, { token: first.token })
      assert.strictEqual(accepted.status, 200, JSON.stringify(accepted.body))
      assert.deepStrictEqual(accepted.body, shown.body)
      assert.include(yield* installedPackIds(first.token, "sticker"), packId)
      const opened = yield* api.request("GET", `/packs/stickers/${packId}`, { token: first.token })
      assert.strictEqual(opened.status, 200, JSON.stringify(opened.body))

      // Accepting again installs nothing new and uses nothing.
      const again = yield* api.request("POST", `/invites/${code}`, { token: first.token })
      assert.strictEqual(again.status, 200)
      const listed = yield* api.request("GET", `/packs/${packId}/invites`, { token: creator.token })
      expect(listed.body).toMatchObject([{ code, uses: 1, max_uses: 2 }])

      const last = yield* api.request("POST", `/invites/${code}`, { token: second.token })
      assert.strictEqual(last.status, 200)
      expectError(yield* api.request("POST", `/invites/${code}`, { token: third.token }), 404, "UNKNOWN_INVITE")
      expectError(yield* api.request("GET", `/invites/${code}`), 404, "UNKNOWN_INVITE")
      assert.notInclude(yield* installedPackIds(third.token, "sticker"), packId)
    }))

  it.effect("answers 404 UNKNOWN_INVITE for an expired or unknown code, 400 for a malformed one, 401 without a session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const creator = yield* api.register()
      const user = yield* api.register()
      const { packId, code } = yield* packWithInvite(creator.token, "emoji", { max_age: 3600 })
      yield* queryAt(api.databaseUrl, "UPDATE pack_invites SET expires_at = now() - interval '1 second' WHERE code = $1", [code])
      expectError(yield* api.request("GET", `/invites/${code}`), 404, "UNKNOWN_INVITE")
      expectError(yield* api.request("POST", `/invites/${code}`, { token: user.token }), 404, "UNKNOWN_INVITE")
      assert.notInclude(yield* installedPackIds(user.token, "emoji"), packId)
      expectError(yield* api.request("POST", "/invites/NoSuchCode", { token: user.token }), 404, "UNKNOWN_INVITE")

      for (const bad of ["not_a_code", "a".repeat(33)]) {
        const reply = yield* api.request("POST", `/invites/${bad}`, { token: user.token })
        assert.strictEqual(reply.status, 400, `${bad}: ${JSON.stringify(reply.body)}`)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "invite_code" }] })
      }
      const live = yield* packWithInvite(creator.token, "emoji")
      expectError(yield* api.request("POST", `/invites/${live.code}`), 401, "UNAUTHORIZED")
    }))

  it.effect("refuses with 400 MAX_PACKS a user who has as many packs of the kind installed as allowed", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const creator = yield* api.register()
      const collector = yield* api.register()
      const { code } = yield* packWithInvite(creator.token, "emoji")
      yield* queryAt(
        api.databaseUrl,
        // Ids far below any snowflake, so they meet no real pack.
        `WITH made AS (INSERT INTO packs (id, type, name, creator_id)
                         SELECT 10000 + g, 'emoji', 'filler', $1 FROM generate_series(1, 100) g RETURNING id)
         INSERT INTO pack_installations (pack_id, user_id) SELECT id, $1 FROM made`,
        [collector.userId]
      )
      expectError(yield* api.request("POST", `/invites/${code}`, { token: collector.token }), 400, "MAX_PACKS")
      // A sticker pack is another kind: the emoji packs do not count against it.
      const stickers = yield* packWithInvite(creator.token, "sticker")
      assert.strictEqual((yield* api.request("POST", `/invites/${stickers.code}`, { token: collector.token })).status, 200)
    }))

  it.effect("still admits into a guild through a guild invite", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const joiner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const code = yield* createInvite(owner.token, channelId)
      const shown = yield* api.request("GET", `/invites/${code}`)
      expect(shown.body).toMatchObject({ code, type: 0, guild: { id: guildId } })
      const joined = yield* api.request("POST", `/invites/${code}`, { token: joiner.token })
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
      expect(joined.body).toMatchObject({ code, type: 0, guild: { id: guildId } })
      const member = yield* api.request("GET", `/guilds/${guildId}/members/${joiner.userId}`, { token: owner.token })
      assert.strictEqual(member.status, 200, JSON.stringify(member.body))
    }))
})
