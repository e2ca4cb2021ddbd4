import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { WriteContext } from "../../../shards/guild/Definitions.ts"
import * as Guild from "../../../shards/guild/operations/Guild.ts"
import * as Settings from "../../../shards/guild/operations/Settings.ts"
import { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import { BadRequest } from "../../../src/model/Errors.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

const user = (id: string, bot = false) => ({
  id,
  username: `u${id}`,
  discriminator: "0001",
  global_name: null,
  avatar: null,
  avatar_color: null,
  flags: 0,
  bot
})
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const withMember = (state: GuildState, id: string, options: { bot?: boolean; roles?: Array<string> } = {}): GuildState => ({
  ...state,
  members: SharedMap.from([...state.members, [id, {
    user: user(id, options.bot),
    roles: options.roles ?? [],
    joined_at: "2026-01-02T00:00:00.000Z",
    mute: false,
    deaf: false
  }]])
})
const withRole = (state: GuildState, id: string, permissions: bigint): GuildState => ({
  ...state,
  roles: new Map([...state.roles, [id, { id, name: "r", color: 0, position: 1, permissions: permissions.toString(), hoist: false, mentionable: false }]])
})
const context = (actorId: string): WriteContext => ({
  guildId: "100",
  limits: defaultLimits,
  actorId,
  operationId: "5000",
  reason: null,
  now: Date.parse("2026-02-01T00:00:00.000Z")
})

describe("guild-level operations", () => {
  it.effect("transfer ownership: owner to member, audited as GUILD_UPDATE", () =>
    Effect.gen(function*() {
      const state = withMember(base, "2")
      const decision = yield* Guild.transferOwnership.decide(state, Guild.transferOwnership.command.make({ newOwnerId: "2" }), context("1"))
      assert.strictEqual(decision.next.guild.owner_id, "2")
      assert.strictEqual(decision.reply.owner_id, "2")
      // The former owner keeps only what @everyone gives.
      assert.strictEqual(decision.reply.permissions, DEFAULT_EVERYONE_PERMISSIONS.toString())
      assert.deepStrictEqual(decision.audit, [{
        actionType: 1,
        targetId: "100",
        changes: [{ key: "owner_id", old_value: "1", new_value: "2" }]
      }])
      assert.deepStrictEqual(decision.events.map((e) => e.type), ["GUILD_UPDATE"])
    }))

  it.effect("transfer ownership refuses non-owners, non-members, bots and oneself", () =>
    Effect.gen(function*() {
      const state = withMember(withMember(withRole(base, "7", Permission.ADMINISTRATOR), "2", { roles: ["7"] }), "3", { bot: true })
      const make = (newOwnerId: string) => Guild.transferOwnership.command.make({ newOwnerId })
      const byAdmin = yield* Effect.flip(Guild.transferOwnership.decide(state, make("2"), context("2")))
      assert.strictEqual(byAdmin.code, "MISSING_PERMISSIONS")
      const byStranger = yield* Effect.flip(Guild.transferOwnership.decide(state, make("9"), context("9")))
      assert.strictEqual(byStranger.code, "MISSING_ACCESS")
      const toStranger = yield* Effect.flip(Guild.transferOwnership.decide(state, make("9"), context("1")))
      assert.strictEqual(toStranger.code, "UNKNOWN_MEMBER")
      const toBot = yield* Effect.flip(Guild.transferOwnership.decide(state, make("3"), context("1")))
      assert.instanceOf(toBot, BadRequest)
      assert.strictEqual(toBot instanceof BadRequest ? toBot.errors?.[0]?.code : undefined, "CANNOT_TRANSFER_OWNERSHIP_TO_BOT")
      const toSelf = yield* Effect.flip(Guild.transferOwnership.decide(state, make("1"), context("1")))
      assert.strictEqual(toSelf.code, "INVALID_FORM_BODY")
    }))

  it.effect("delete: only the owner; the actor drops the guild and learns its members", () =>
    Effect.gen(function*() {
      const state = withMember(base, "2")
      const decision = yield* Guild.deleteGuild.decide(state, Guild.deleteGuild.command.make({}), context("1"))
      assert.isTrue(decision.dropsGuild)
      assert.deepStrictEqual(decision.reply, { id: "100", memberIds: ["1", "2"] })
      assert.deepStrictEqual(decision.events, [{ type: "GUILD_DELETE", data: { id: "100" } }])
      assert.deepStrictEqual(decision.audit, [])
      const byMember = yield* Effect.flip(Guild.deleteGuild.decide(state, Guild.deleteGuild.command.make({}), context("2")))
      assert.strictEqual(byMember.code, "MISSING_PERMISSIONS")
    }))

  it.effect("feature toggles add and remove once, and need MANAGE_GUILD", () =>
    Effect.gen(function*() {
      const on = Settings.toggleFeature.command.make({ feature: "DETACHED_BANNER", enabled: true })
      const enabled = yield* Settings.toggleFeature.decide(base, on, context("1"))
      assert.deepStrictEqual(enabled.next.guild.features, ["DETACHED_BANNER"])
      assert.deepStrictEqual(enabled.audit[0]?.changes, [{ key: "features", old_value: [], new_value: ["DETACHED_BANNER"] }])
      const again = yield* Settings.toggleFeature.decide(enabled.next, on, context("1"))
      assert.strictEqual(again.next, enabled.next)
      assert.deepStrictEqual(again.audit, [])
      const off = Settings.toggleFeature.command.make({ feature: "DETACHED_BANNER", enabled: false })
      const disabled = yield* Settings.toggleFeature.decide(enabled.next, off, context("1"))
      assert.deepStrictEqual(disabled.next.guild.features, [])
      const member = withMember(base, "2")
      const refused = yield* Effect.flip(Settings.toggleFeature.decide(member, on, context("2")))
      assert.strictEqual(refused.code, "MISSING_PERMISSIONS")
    }))

  it.effect("vanity code: set and audited, unchanged when the same; read for MANAGE_GUILD", () =>
    Effect.gen(function*() {
      const set = yield* Settings.setVanityCode.decide(base, Settings.setVanityCode.command.make({ code: "hall" }), context("1"))
      assert.strictEqual(set.next.guild.vanity_url_code, "hall")
      assert.deepStrictEqual(set.audit[0]?.changes, [{ key: "vanity_url_code", old_value: null, new_value: "hall" }])
      const same = yield* Settings.setVanityCode.decide(set.next, Settings.setVanityCode.command.make({ code: "hall" }), context("1"))
      assert.deepStrictEqual(same.audit, [])
      const now = context("1").now
      assert.strictEqual(yield* Settings.vanityCode.run(set.next, Settings.vanityCode.query.make({ now }), "1"), "hall")
      const member = withMember(set.next, "2")
      const refused = yield* Effect.flip(Settings.vanityCode.run(member, Settings.vanityCode.query.make({ now }), "2"))
      assert.strictEqual(refused.code, "MISSING_PERMISSIONS")
    }))

  it.effect("viewer permissions: answered when held, 403 otherwise", () =>
    Effect.gen(function*() {
      const state = withMember(withMember(withRole(base, "7", Permission.VIEW_AUDIT_LOG), "2", { roles: ["7"] }), "3")
      const now = context("1").now
      const query = Guild.viewerPermissions.query.make({ wanted: Permission.VIEW_AUDIT_LOG.toString(), now })
      assert.strictEqual(yield* Guild.viewerPermissions.run(state, query, "1"), ALL_PERMISSIONS.toString())
      const granted = BigInt(yield* Guild.viewerPermissions.run(state, query, "2"))
      assert.strictEqual(granted & Permission.VIEW_AUDIT_LOG, Permission.VIEW_AUDIT_LOG)
      assert.strictEqual((yield* Effect.flip(Guild.viewerPermissions.run(state, query, "3"))).code, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* Effect.flip(Guild.viewerPermissions.run(state, query, "9"))).code, "MISSING_ACCESS")
    }))
})
