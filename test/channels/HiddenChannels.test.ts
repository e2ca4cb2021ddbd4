import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ALL_PERMISSIONS, Permission } from "../../src/model/Permissions.ts"
import { cast } from "../support/Cast.ts"
import { expectError, field, TestApi } from "../support/Api.ts"

/*
 * Without VIEW_CHANNEL a member holds no other permission in that channel,
 * whatever the guild level grants: every channel-scoped route answers as
 * conventions.md and Discord do for a channel one cannot see (403
 * MISSING_ACCESS), and nothing in the answer names the channel.
 */
layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("channels a member cannot see", (it) => {
  it.effect("every channel-scoped route refuses a member who cannot view the channel, whatever else they hold", () =>
    Effect.gen(function*() {
      // Every permission but ADMINISTRATOR at guild level.
      const { api, owner, member, guildId, channelId } = yield* cast({ memberPermissions: ALL_PERMISSIONS & ~Permission.ADMINISTRATOR })
      const created = yield* api.request("POST", `/guilds/${guildId}/channels`, {
        token: owner.token,
        body: {
          name: "secret",
          type: 0,
          permission_overwrites: [{ id: guildId, type: 0, allow: "0", deny: Permission.VIEW_CHANNEL.toString() }]
        }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const secret = field(created.body, "id")
      const posted = yield* api.request("POST", `/channels/${secret}/messages`, { token: owner.token, body: { content: "hush" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const message = field(posted.body, "id")
      const other = field((yield* api.request("POST", `/channels/${secret}/messages`, { token: owner.token, body: { content: "more" } })).body, "id")

      // The control: the same member does all this where they can see.
      const visibleInvite = yield* api.request("POST", `/channels/${channelId}/invites`, { token: member.token, body: {} })
      assert.strictEqual(visibleInvite.status, 200, JSON.stringify(visibleInvite.body))

      const at = `/channels/${secret}`
      const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
        ["POST", `${at}/invites`, {}],
        ["GET", `${at}/invites`],
        ["GET", at],
        ["PATCH", at, { name: "renamed" }],
        ["DELETE", at],
        ["PUT", `${at}/permissions/${member.userId}`, { type: 1, allow: "0", deny: "0" }],
        ["DELETE", `${at}/permissions/${member.userId}`],
        ["GET", `${at}/messages`],
        ["POST", `${at}/messages`, { content: "let me in" }],
        ["PATCH", `${at}/messages/${message}`, { content: "edited" }],
        ["DELETE", `${at}/messages/${message}`],
        ["POST", `${at}/messages/bulk-delete`, { messages: [message, other] }],
        ["POST", `${at}/typing`],
        ["POST", `${at}/messages/${message}/ack`, {}],
        ["POST", `${at}/messages/schedule`, { content: "later", scheduled_local_at: new Date(Date.now() + 86_400_000).toISOString().slice(0, 19), timezone: "UTC" }],
        ["PUT", `${at}/messages/${message}/reactions/%F0%9F%91%8D/@me`],
        ["DELETE", `${at}/messages/${message}/reactions/%F0%9F%91%8D/@me`],
        ["DELETE", `${at}/messages/${message}/reactions/%F0%9F%91%8D/${owner.userId}`],
        ["DELETE", `${at}/messages/${message}/reactions/%F0%9F%91%8D`],
        ["DELETE", `${at}/messages/${message}/reactions`],
        ["PUT", `${at}/pins/${message}`],
        ["DELETE", `${at}/pins/${message}`],
        ["POST", `${at}/pins/ack`]
      ]
      for (const [method, path, body] of routes) {
        const reply = yield* api.request(method, path, { token: member.token, body })
        assert.strictEqual(reply.status, 403, `${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`)
        expect(reply.body, `${method} ${path}`).toEqual({ code: "MISSING_ACCESS", message: "Missing access" })
      }

      // Nothing happened: the owner still sees both messages, unpinned, unreacted, and no invite to the channel.
      const messages = yield* api.request("GET", `${at}/messages`, { token: owner.token })
      expect(messages.body).toMatchObject([{ id: other, pinned: false }, { id: message, content: "hush", pinned: false }])
      expect(messages.body).not.toMatchObject([{}, { reactions: expect.anything() }])
      expect((yield* api.request("GET", `${at}/invites`, { token: owner.token })).body).toEqual([])
      expectError(yield* api.request("POST", `/channels/1/invites`, { token: member.token, body: {} }), 404, "UNKNOWN_CHANNEL")
    }))
})
