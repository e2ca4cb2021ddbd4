import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, TestApi } from "../../support/Api.ts"
import { auditEntries } from "../../support/Audit.ts"
import { queryAt } from "../../support/Postgres.ts"
import { identified, nextMatching } from "../../gateway/Client.ts"
import { addBot } from "../../gateway/Bots.ts"
import { adminLogs, adminOk, asAdmin, guildWith, operatorId } from "./Fixtures.ts"

const named = (name: string) => (d: unknown) => typeof d === "object" && d !== null && "name" in d && d.name === name

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("admin guild settings", (it) => {
  it.effect("update-name: members' sessions get GUILD_UPDATE; both audit logs record the operator", () =>
    Effect.gen(function*() {
      const { api, owner, members, guildId } = yield* guildWith(1)
      const [member] = members
      if (member === undefined) throw new Error("no member")
      const session = (yield* identified(member.token)).client
      const body = yield* adminOk("/admin/guilds/update-name", { guild_id: guildId, name: "Renamed by staff" })
      assert.deepStrictEqual(body, {
        guild: { id: guildId, owner_id: owner.userId, name: "Renamed by staff", icon: null, banner: null, features: [], member_count: 2 }
      })
      yield* nextMatching(session, "GUILD_UPDATE", named("Renamed by staff"))
      const seen = yield* api.request("GET", `/guilds/${guildId}`, { token: member.token })
      expect(seen.body).toMatchObject({ name: "Renamed by staff" })

      const operator = yield* operatorId
      const entries = yield* auditEntries(guildId)
      expect(entries[0]).toMatchObject({ action_type: 1, user_id: operator })
      expect(yield* adminLogs(guildId)).toEqual(expect.arrayContaining([
        expect.objectContaining({ action: "guild.update_name", admin_user_id: operator, metadata: { new_name: "Renamed by staff" } })
      ]))
      expectError(yield* asAdmin("/admin/guilds/update-name", { guild_id: "1", name: "Nobody's" }), 404, "UNKNOWN_GUILD")
    }))

  it.effect("update-settings, update-features, clear-fields: the lookup shows them", () =>
    Effect.gen(function*() {
      const { api, owner, guildId } = yield* guildWith(0)
      const session = (yield* identified(owner.token)).client
      yield* adminOk("/admin/guilds/update-settings", {
        guild_id: guildId,
        verification_level: 3,
        explicit_content_filter: 2,
        default_message_notifications: 1,
        disabled_operations: 4
      })
      const features = yield* adminOk("/admin/guilds/update-features", {
        guild_id: guildId,
        add_features: ["VERIFIED", "PARTNERED"],
        remove_features: ["PARTNERED"]
      })
      expect(features).toMatchObject({ guild: { features: expect.arrayContaining(["VERIFIED"]) } })
      assert.notInclude((features as { guild: { features: Array<string> } }).guild.features, "PARTNERED")

      // An icon and a banner the guild had, then cleared.
      yield* queryAt(api.databaseUrl, "UPDATE guilds SET icon = 'a1b2', banner = 'c3d4', splash = 'e5f6' WHERE id = $1", [guildId])
      yield* adminOk("/admin/guilds/reload", { guild_id: guildId })
      yield* adminOk("/admin/guilds/clear-fields", { guild_id: guildId, fields: ["icon", "banner"] }, 204)
      yield* nextMatching(session, "GUILD_UPDATE", (d) => typeof d === "object" && d !== null && "icon" in d && d.icon === null)
      const lookup = yield* adminOk("/admin/guilds/lookup", { guild_id: guildId })
      expect(lookup).toMatchObject({
        guild: {
          id: guildId,
          verification_level: 3,
          explicit_content_filter: 2,
          default_message_notifications: 1,
          disabled_operations: 4,
          features: expect.arrayContaining(["VERIFIED"]),
          icon: null,
          banner: null,
          splash: "e5f6",
          member_count: 1
        }
      })
      const actions = (yield* adminLogs(guildId)).map((l) => l.action)
      expect(actions).toEqual(expect.arrayContaining(["guild.update_settings", "guild.update_features", "guild.clear_fields"]))
    }))

  it.effect("update-vanity: sets, refuses a code another guild holds, null removes it", () =>
    Effect.gen(function*() {
      const { api, owner, guildId } = yield* guildWith(0)
      const other = yield* guildWith(0)
      const code = `staff-${guildId.slice(-6)}`
      yield* adminOk("/admin/guilds/update-vanity", { guild_id: guildId, vanity_url_code: code })
      const vanity = yield* api.request("GET", `/guilds/${guildId}/vanity-url`, { token: owner.token })
      expect(vanity.body).toMatchObject({ code, uses: 0 })
      const taken = yield* asAdmin("/admin/guilds/update-vanity", { guild_id: other.guildId, vanity_url_code: code })
      expectError(taken, 400, "INVALID_FORM_BODY")
      expect(taken.body).toMatchObject({ errors: [{ path: "vanity_url_code", code: "THIS_VANITY_URL_IS_ALREADY_TAKEN" }] })
      yield* adminOk("/admin/guilds/update-vanity", { guild_id: guildId, vanity_url_code: null })
      expect(yield* adminOk("/admin/guilds/lookup", { guild_id: guildId })).toMatchObject({ guild: { vanity_url_code: null } })
      // Free again: the other guild takes it.
      yield* adminOk("/admin/guilds/update-vanity", { guild_id: other.guildId, vanity_url_code: code })
    }))

  it.effect("transfer-ownership: to a member, never to a bot nor a stranger", () =>
    Effect.gen(function*() {
      const { api, owner, members, guildId } = yield* guildWith(1)
      const [member] = members
      if (member === undefined) throw new Error("no member")
      const bot = yield* addBot(owner.token, guildId, 0n)
      const stranger = yield* api.register()
      expectError(
        yield* asAdmin("/admin/guilds/transfer-ownership", { guild_id: guildId, new_owner_id: bot.id }),
        400,
        "INVALID_FORM_BODY"
      )
      const toBot = yield* asAdmin("/admin/guilds/transfer-ownership", { guild_id: guildId, new_owner_id: bot.id })
      expect(JSON.stringify(toBot.body)).toContain("CANNOT_TRANSFER_OWNERSHIP_TO_BOT")
      expectError(
        yield* asAdmin("/admin/guilds/transfer-ownership", { guild_id: guildId, new_owner_id: stranger.userId }),
        404,
        "UNKNOWN_MEMBER"
      )
      const session = (yield* identified(owner.token)).client
      const moved = yield* adminOk("/admin/guilds/transfer-ownership", { guild_id: guildId, new_owner_id: member.userId })
      expect(moved).toMatchObject({ guild: { id: guildId, owner_id: member.userId } })
      yield* nextMatching(session, "GUILD_UPDATE", (d) =>
        typeof d === "object" && d !== null && "owner_id" in d && d.owner_id === member.userId)
      expect(yield* adminLogs(guildId)).toEqual(expect.arrayContaining([
        expect.objectContaining({
          action: "guild.transfer_ownership",
          metadata: { old_owner_id: owner.userId, new_owner_id: member.userId }
        })
      ]))
    }))
})
