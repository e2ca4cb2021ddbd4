import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { cast, createGuild, newMember } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { layerWithMedia } from "../media/MediaLayer.ts"
import { dataUri, png } from "../media/Fixtures.ts"
import { createWebhook, webhookOf } from "./Support.ts"

const MANAGER = Permission.VIEW_CHANNEL | Permission.MANAGE_WEBHOOKS

layerWithMedia("webhooks")("webhooks over HTTP", (it) => {
  it.effect("creates, lists, reads, renames, moves and deletes a webhook, audited, the token shown once", () =>
    Effect.gen(function*() {
      const { api, owner, member: manager, guildId, channelId } = yield* cast({ memberPermissions: MANAGER })
      const image = png(16, 16)
      const created = webhookOf(yield* api.request("POST", `/channels/${channelId}/webhooks`, {
        token: manager.token,
        body: { name: "  Deploys ", avatar: dataUri(image) },
        headers: { "x-audit-log-reason": "ci" }
      }))
      expect(created).toMatchObject({ guild_id: guildId, channel_id: channelId, name: "Deploys", user: { id: manager.userId } })
      assert.isTrue(created.token.length >= 32)
      assert.match(created.avatar ?? "", /^[0-9a-f]{64}$/)
      // Only the token's hash is stored.
      const [row] = yield* queryAt(api.databaseUrl, "SELECT token_hash, avatar_hash FROM webhooks WHERE id = $1", [created.id])
      assert.notStrictEqual(row?.token_hash, created.token)
      assert.notInclude(JSON.stringify(row), created.token)
      const served = yield* Effect.promise(() => fetch(`${api.baseUrl}/media/${created.avatar}`))
      assert.strictEqual(served.status, 200)

      // Later reads by a user carry no token.
      const read = webhookOf(yield* api.request("GET", `/webhooks/${created.id}`, { token: owner.token }))
      assert.strictEqual(read.token, "")
      const channelList = yield* api.request("GET", `/channels/${channelId}/webhooks`, { token: manager.token })
      expect(channelList.body).toMatchObject([{ id: created.id, token: "" }])
      const guildList = yield* api.request("GET", `/guilds/${guildId}/webhooks`, { token: manager.token })
      expect(guildList.body).toMatchObject([{ id: created.id, token: "" }])

      // Moved to another text channel of the guild.
      const other = yield* api.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { name: "ops", type: 0 } })
      assert.strictEqual(other.status, 200, JSON.stringify(other.body))
      const otherId = (other.body as { id: string }).id
      const moved = webhookOf(yield* api.request("PATCH", `/webhooks/${created.id}`, {
        token: manager.token,
        body: { name: "Releases", channel_id: otherId, avatar: null }
      }))
      expect(moved).toMatchObject({ name: "Releases", channel_id: otherId, avatar: null, token: "" })
      expect((yield* api.request("GET", `/channels/${channelId}/webhooks`, { token: manager.token })).body).toEqual([])

      // A channel of another guild is unknown here.
      const elsewhere = yield* createGuild(owner.token, "Elsewhere")
      expectError(
        yield* api.request("PATCH", `/webhooks/${created.id}`, { token: owner.token, body: { channel_id: elsewhere.channelId } }),
        404,
        "UNKNOWN_CHANNEL"
      )

      // The guild's actor reads them back the same.
      yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
      const reloaded = yield* api.request("GET", `/guilds/${guildId}/webhooks`, { token: manager.token })
      expect(reloaded.body).toMatchObject([{ id: created.id, name: "Releases", channel_id: otherId, user: { id: manager.userId } }])

      const deleted = yield* api.request("DELETE", `/webhooks/${created.id}`, { token: manager.token })
      assert.strictEqual(deleted.status, 204)
      expectError(yield* api.request("GET", `/webhooks/${created.id}`, { token: owner.token }), 404, "UNKNOWN_WEBHOOK")

      // Audit: 50, 51 with what changed, 52; the list names the webhooks still there.
      const kept = yield* createWebhook(manager.token, channelId, "Kept")
      const log = yield* api.request("GET", `/guilds/${guildId}/audit-logs`, { token: owner.token })
      assert.strictEqual(log.status, 200)
      const body = log.body as {
        audit_log_entries: ReadonlyArray<{ action_type: number; target_id: string; reason?: string; changes: ReadonlyArray<unknown> }>
        webhooks: ReadonlyArray<unknown>
      }
      const webhookEntries = body.audit_log_entries.filter((e) => [50, 51, 52].includes(e.action_type)).reverse()
      expect(webhookEntries).toMatchObject([
        { action_type: 50, target_id: created.id, reason: "ci" },
        { action_type: 51, target_id: created.id },
        { action_type: 52, target_id: created.id },
        { action_type: 50, target_id: kept.id }
      ])
      expect(webhookEntries[0]?.changes).toEqual(expect.arrayContaining([{ key: "name", new_value: "Deploys" }]))
      expect(webhookEntries[1]?.changes).toEqual(expect.arrayContaining([
        { key: "name", old_value: "Deploys", new_value: "Releases" },
        { key: "channel_id", old_value: channelId, new_value: otherId }
      ]))
      assert.deepStrictEqual(body.webhooks, [{ id: kept.id, type: 1, guild_id: guildId, channel_id: channelId, name: "Kept", avatar_hash: null }])
    }))

  it.effect("the by-token routes: read, rename (never move), delete; a wrong token is an unknown webhook", () =>
    Effect.gen(function*() {
      const { api, owner, guildId, channelId } = yield* cast()
      const webhook = yield* createWebhook(owner.token, channelId)
      const read = yield* api.request("GET", `/webhooks/${webhook.id}/${webhook.token}`)
      assert.deepStrictEqual(read.body, {
        id: webhook.id, guild_id: guildId, channel_id: channelId, name: "Deploys", avatar: null, token: webhook.token
      })
      expectError(yield* api.request("GET", `/webhooks/${webhook.id}/${webhook.token}x`), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("GET", `/webhooks/${webhook.id}/nope`), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("GET", `/webhooks/4242424242/${webhook.token}`), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("PATCH", `/webhooks/${webhook.id}/wrong`, { body: { name: "x" } }), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("DELETE", `/webhooks/${webhook.id}/wrong`), 404, "UNKNOWN_WEBHOOK")

      const renamed = yield* api.request("PATCH", `/webhooks/${webhook.id}/${webhook.token}`, {
        body: { name: "Alerts", channel_id: "1" }
      })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      assert.deepStrictEqual(renamed.body, {
        id: webhook.id, guild_id: guildId, channel_id: channelId, name: "Alerts", avatar: null, token: webhook.token
      })
      expectError(yield* api.request("PATCH", `/webhooks/${webhook.id}/${webhook.token}`, { body: { name: "" } }), 400, "INVALID_FORM_BODY")
      // Token changes are not audited: nobody signed in made them.
      const [entries] = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM guild_audit_log_entries WHERE guild_id = $1 AND action_type = 51", [guildId])
      assert.strictEqual(entries?.n, 0)

      assert.strictEqual((yield* api.request("DELETE", `/webhooks/${webhook.id}/${webhook.token}`)).status, 204)
      expectError(yield* api.request("GET", `/webhooks/${webhook.id}/${webhook.token}`), 404, "UNKNOWN_WEBHOOK")
    }))

  it.effect("bad input is 400, without MANAGE_WEBHOOKS 403, without a session 401", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger, guildId, channelId } = yield* cast()
      const path = `/channels/${channelId}/webhooks`
      for (const body of [{ name: "" }, { name: "   " }, { name: "x".repeat(81) }, { name: 5 }, {}, { name: "a\u0000b" }, { name: "ok", avatar: "not-an-image" }, { name: "ok", avatar: dataUri(Buffer.from("GIF89a nope")) }]) {
        expectError(yield* api.request("POST", path, { token: owner.token, body }), 400, "INVALID_FORM_BODY")
      }
      const webhook = yield* createWebhook(owner.token, channelId)
      expectError(yield* api.request("PATCH", `/webhooks/${webhook.id}`, { token: owner.token, body: { channel_id: "abc" } }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("GET", "/webhooks/not-a-snowflake", { token: owner.token }), 400, "INVALID_FORM_BODY")

      for (const [method, route] of [["GET", path], ["POST", path], ["GET", `/guilds/${guildId}/webhooks`], ["GET", `/webhooks/${webhook.id}`], ["PATCH", `/webhooks/${webhook.id}`], ["DELETE", `/webhooks/${webhook.id}`]] as const) {
        const body = method === "GET" || method === "DELETE" ? undefined : { name: "Nope" }
        expectError(yield* api.request(method, route, { token: member.token, body }), 403, "MISSING_PERMISSIONS")
        expectError(yield* api.request(method, route, { token: stranger.token, body }), 403, "MISSING_ACCESS")
        expectError(yield* api.request(method, route, { body }), 401, "UNAUTHORIZED")
      }
      // Without the right, a picture is refused before it is looked at or stored.
      expectError(yield* api.request("POST", path, { token: member.token, body: { name: "x", avatar: "not-an-image" } }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("PATCH", `/webhooks/${webhook.id}`, { token: member.token, body: { avatar: "not-an-image" } }), 403, "MISSING_PERMISSIONS")
      // Moving needs MANAGE_WEBHOOKS where it goes too.
      const manager = yield* newMember(guildId, MANAGER)
      const other = yield* api.request("POST", `/guilds/${guildId}/channels`, {
        token: owner.token,
        body: { name: "locked", type: 0, permission_overwrites: [{ id: manager.roleId, type: 0, deny: Permission.MANAGE_WEBHOOKS.toString() }] }
      })
      assert.strictEqual(other.status, 200, JSON.stringify(other.body))
      const otherId = (other.body as { id: string }).id
      expectError(yield* api.request("PATCH", `/webhooks/${webhook.id}`, { token: manager.token, body: { channel_id: otherId } }), 403, "MISSING_PERMISSIONS")
    }))

  it.effect("15 webhooks per channel: the 16th is refused; a move into a full channel too", () =>
    Effect.gen(function*() {
      const { api, owner, guildId, channelId } = yield* cast()
      for (let i = 0; i < 15; i++) yield* createWebhook(owner.token, channelId, `hook ${i}`)
      expectError(yield* api.request("POST", `/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "one more" } }), 400, "MAX_WEBHOOKS_PER_CHANNEL")
      const other = yield* api.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { name: "spare", type: 0 } })
      const otherId = (other.body as { id: string }).id
      const spare = yield* createWebhook(owner.token, otherId)
      expectError(yield* api.request("PATCH", `/webhooks/${spare.id}`, { token: owner.token, body: { channel_id: channelId } }), 400, "MAX_WEBHOOKS_PER_CHANNEL")

      // Deleting the channel deletes its webhooks.
      assert.isTrue([200, 204].includes((yield* api.request("DELETE", `/channels/${otherId}`, { token: owner.token })).status))
      expectError(yield* api.request("GET", `/webhooks/${spare.id}`, { token: owner.token }), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("GET", `/webhooks/${spare.id}/${spare.token}`), 404, "UNKNOWN_WEBHOOK")
      const rows = yield* queryAt(api.databaseUrl, "SELECT id FROM webhooks WHERE id = $1", [spare.id])
      assert.deepStrictEqual(rows, [])
    }))

  it.effect("deleting the guild deletes its webhooks: their ids and tokens are unknown from then on", () =>
    Effect.gen(function*() {
      const { api, owner, guildId, channelId } = yield* cast()
      const webhook = yield* createWebhook(owner.token, channelId)
      // The webhook's guild is looked up (and remembered) before the guild goes.
      assert.strictEqual((yield* api.request("GET", `/webhooks/${webhook.id}/${webhook.token}`)).status, 200)
      const deleted = yield* api.request("POST", `/guilds/${guildId}/delete`, { token: owner.token, body: { password: "correct horse battery" } })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      expectError(yield* api.request("GET", `/webhooks/${webhook.id}/${webhook.token}`), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("POST", `/webhooks/${webhook.id}/${webhook.token}?wait=true`, { body: { content: "hi" } }), 404, "UNKNOWN_WEBHOOK")
      expectError(yield* api.request("GET", `/webhooks/${webhook.id}`, { token: owner.token }), 404, "UNKNOWN_WEBHOOK")
      assert.deepStrictEqual(yield* queryAt(api.databaseUrl, "SELECT id FROM webhooks WHERE id = $1", [webhook.id]), [])
    }))
})
