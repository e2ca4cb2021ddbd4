import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild, joinGuild, reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { createApplication } from "../oauth2/Fixtures.ts"

interface Role {
  readonly id: string
  readonly name: string
  readonly position: number
  readonly managed?: boolean
  readonly tags?: { readonly bot_id: string }
}

const rolesOf = (guildId: string, token: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("GET", `/guilds/${guildId}/roles`, { token })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body as ReadonlyArray<Role>
  })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("a bot's managed role", (it) => {
  it.effect("comes with the bot (managed, tags.bot_id), shares no position, is given, taken and deleted by no one, and leaves with the bot", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const human = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      yield* joinGuild(guildId, human.userId)
      yield* reload(guildId)
      const app = yield* createApplication(owner.token, { name: "Roler" })
      const permissions = (Permission.MANAGE_ROLES | Permission.SEND_MESSAGES).toString()
      const consent = () =>
        api.request("POST", "/oauth2/authorize/consent", {
          token: owner.token,
          body: { client_id: app.id, scope: "bot", guild_id: guildId, permissions }
        })
      assert.strictEqual((yield* consent()).status, 200)

      const botRole = (yield* rolesOf(guildId, owner.token)).find((r) => r.tags?.bot_id === app.id)
      expect(botRole).toMatchObject({ name: "Roler", managed: true, position: 1, tags: { bot_id: app.id } })
      const botRoleId = botRole?.id ?? ""
      const everyone = (yield* rolesOf(guildId, owner.token)).find((r) => r.id === guildId)
      assert.strictEqual(everyone?.managed, false)

      // A role made afterwards goes to the bottom; the bot's moves up: no two share a position.
      const made = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "after" } })
      assert.strictEqual(made.status, 200, JSON.stringify(made.body))
      // The bot, with MANAGE_ROLES, makes one with a colour and hoisted, as discord.js sends it.
      const byBot = yield* api.request("POST", `/guilds/${guildId}/roles`, {
        token: app.botToken,
        body: { name: "bot-made", colors: { primary_color: 0x3366ff, secondary_color: null, tertiary_color: null }, hoist: true, mentionable: true }
      })
      assert.strictEqual(byBot.status, 200, JSON.stringify(byBot.body))
      expect(byBot.body).toMatchObject({ color: 0x3366ff, hoist: true, mentionable: true, managed: false, position: 1 })
      const positions = (yield* rolesOf(guildId, owner.token)).map((r) => [r.name, r.position])
      assert.deepStrictEqual(positions, [["Roler", 3], ["after", 2], ["bot-made", 1], ["@everyone", 0]])

      // Not by hand, not even by the owner.
      expectError(yield* api.request("DELETE", `/guilds/${guildId}/roles/${botRoleId}`, { token: owner.token }), 403, "MISSING_PERMISSIONS")
      expectError(
        yield* api.request("PUT", `/guilds/${guildId}/members/${human.userId}/roles/${botRoleId}`, { token: owner.token }),
        403,
        "MISSING_PERMISSIONS"
      )
      expectError(
        yield* api.request("DELETE", `/guilds/${guildId}/members/${app.id}/roles/${botRoleId}`, { token: owner.token }),
        403,
        "MISSING_PERMISSIONS"
      )
      expectError(
        yield* api.request("PATCH", `/guilds/${guildId}/members/${human.userId}`, { token: owner.token, body: { roles: [botRoleId] } }),
        403,
        "MISSING_PERMISSIONS"
      )
      expectError(
        yield* api.request("PATCH", `/guilds/${guildId}/members/${app.id}`, { token: owner.token, body: { roles: [] } }),
        403,
        "MISSING_PERMISSIONS"
      )
      // Its settings may change, as any role's.
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}/roles/${botRoleId}`, { token: owner.token, body: { name: "Roler!" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))

      // Kicked, the bot takes its role with it; added again, it gets a new one.
      const kicked = yield* api.request("DELETE", `/guilds/${guildId}/members/${app.id}`, { token: owner.token })
      assert.strictEqual(kicked.status, 204, JSON.stringify(kicked.body))
      assert.isFalse((yield* rolesOf(guildId, owner.token)).some((r) => r.id === botRoleId))
      assert.deepStrictEqual(yield* queryAt(api.databaseUrl, "SELECT id FROM guild_roles WHERE guild_id = $1 AND bot_id IS NOT NULL", [guildId]), [])
      assert.strictEqual((yield* consent()).status, 200)
      const again = (yield* rolesOf(guildId, owner.token)).find((r) => r.tags?.bot_id === app.id)
      expect(again).toMatchObject({ managed: true, position: 1 })
      assert.notStrictEqual(field(again, "id"), botRoleId)
      // Banned, the same.
      const banned = yield* api.request("PUT", `/guilds/${guildId}/bans/${app.id}`, { token: owner.token, body: {} })
      assert.strictEqual(banned.status, 204, JSON.stringify(banned.body))
      assert.isFalse((yield* rolesOf(guildId, owner.token)).some((r) => r.managed === true))
    }))
})
