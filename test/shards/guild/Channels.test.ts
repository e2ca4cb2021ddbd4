import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChannelLayout from "../../../shards/guild/operations/ChannelLayout.ts"
import * as Channels from "../../../shards/guild/operations/Channels.ts"
import type { WriteContext } from "../../../shards/guild/Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import type { ChannelCreateRequest } from "../../../src/model/Channels.ts"
import type { GuildMemberResponse, GuildRoleResponse } from "../../../src/model/Guilds.ts"
import type { GuildChannel } from "../../../shards/guild/channels/GuildChannel.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const role = (id: string, permissions: bigint): [string, GuildRoleResponse] =>
  [id, { id, name: `r${id}`, color: 0, position: 1, permissions: permissions.toString(), hoist: false, mentionable: false }]
const member = (id: string, roles: ReadonlyArray<string>): [string, GuildMemberResponse] =>
  [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }]
const context = (actorId: string): WriteContext =>
  ({ guildId: "100", actorId, operationId: "5000", reason: null, limits: defaultLimits, now: Date.parse("2026-02-01T00:00:00Z") })

/** Role 10: MANAGE_CHANNELS; role 11: MANAGE_CHANNELS | MANAGE_ROLES. Member 2 has 10, 3 has 11, 4 nothing. */
const state: GuildState = {
  ...base,
  roles: new Map([...base.roles, role("10", Permission.MANAGE_CHANNELS), role("11", Permission.MANAGE_CHANNELS | Permission.MANAGE_ROLES)]),
  members: SharedMap.from([...base.members, member("2", ["10"]), member("3", ["11"]), member("4", [])])
}

const create = (s: GuildState, actorId: string, channelId: string, request: ChannelCreateRequest) =>
  Channels.createChannel.decide(s, Channels.createChannel.command.make({ channelId: CarriedId.ChannelId.make(channelId), request }), context(actorId))

/** A validation failure's field code, else the error's own code. */
const codeOf = (e: { readonly code: string; readonly errors?: ReadonlyArray<{ readonly code?: string | undefined }> | undefined }) =>
  e.errors?.[0]?.code ?? e.code

/** The state after creating a category 300 and a text channel 301 inside it. */
const withCategory = Effect.gen(function*() {
  const category = yield* create(state, "1", "300", { type: 4, name: "Stuff" })
  const inside = yield* create(category.next, "1", "301", { type: 0, name: "Inside", parent_id: "300" })
  return inside.next
})

describe("channel operations", () => {
  it.effect("create the four variants, normalize text names, audit 10 and CHANNEL_CREATE", () =>
    Effect.gen(function*() {
      const text = yield* create(state, "2", "200", { type: 0, name: "  Hello World " })
      assert.strictEqual(text.reply.name, "hello-world")
      assert.strictEqual(text.reply.position, 1)
      assert.strictEqual(text.audit[0]?.actionType, 10)
      assert.strictEqual(text.events[0]?.type, "CHANNEL_CREATE")
      const voice = yield* create(state, "2", "201", { type: 2, name: "Talk Here" })
      assert.deepStrictEqual([voice.reply.name, voice.reply.bitrate, voice.reply.user_limit], ["Talk Here", 64000, 0])
      const link = yield* create(state, "2", "202", { type: 998, name: "Docs", url: "https://example.org" })
      assert.strictEqual(link.reply.url, "https://example.org")
      assert.strictEqual(codeOf(yield* Effect.flip(create(state, "2", "205", { type: 998, name: "Docs", url: "javascript:alert(1)" }))), "INVALID_URL_FORMAT")
      const category = yield* create(state, "2", "203", { type: 4, name: "Cat" })
      assert.strictEqual(category.reply.type, 4)
      const empty = yield* Effect.flip(create(state, "2", "204", { type: 0, name: "   " }))
      assert.strictEqual(codeOf(empty), "CHANNEL_NAME_EMPTY_AFTER_NORMALIZATION")
    }))

  it.effect("create checks the parent: a category of this guild, none for categories, 50 per category, 500 per guild", () =>
    Effect.gen(function*() {
      const s = yield* withCategory
      assert.strictEqual(codeOf(yield* Effect.flip(create(s, "1", "400", { type: 0, name: "x", parent_id: "301" }))), "PARENT_MUST_BE_CATEGORY")
      assert.strictEqual(codeOf(yield* Effect.flip(create(s, "1", "400", { type: 0, name: "x", parent_id: "999" }))), "PARENT_CHANNEL_NOT_IN_GUILD")
      assert.strictEqual(codeOf(yield* Effect.flip(create(s, "1", "400", { type: 4, name: "x", parent_id: "300" }))), "CATEGORIES_CANNOT_HAVE_PARENTS")
      const full = new Map(s.channels)
      for (let i = 0; i < 49; i++) full.set(`9${i}`, { id: `9${i}`, guild_id: "100", type: 0, name: "n", topic: null, position: 0, parent_id: "300", nsfw: false, permission_overwrites: [] })
      const fullCategory = yield* Effect.flip(create({ ...s, channels: full }, "1", "400", { type: 0, name: "x", parent_id: "300" }))
      assert.strictEqual(codeOf(fullCategory), "MAX_CATEGORY_CHANNELS")
      const many = new Map<string, GuildChannel>()
      for (let i = 0; i < 500; i++) {
        many.set(`${1000 + i}`, { id: `${1000 + i}`, guild_id: "100", type: 0, name: "n", topic: null, position: 0, parent_id: null, nsfw: false, permission_overwrites: [] })
      }
      assert.strictEqual(codeOf(yield* Effect.flip(create({ ...s, channels: many }, "1", "400", { type: 0, name: "x" }))), "MAX_GUILD_CHANNELS")
    }))

  it.effect("create needs MANAGE_CHANNELS, and MANAGE_ROLES plus the bits themselves for overwrites", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Effect.flip(create(state, "4", "200", { type: 0, name: "x" }))).code, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* Effect.flip(create(state, "9", "200", { type: 0, name: "x" }))).code, "MISSING_ACCESS")
      const hidden = { type: 0 as const, name: "x", permission_overwrites: [{ id: "100", type: 0 as const, deny: Permission.VIEW_CHANNEL.toString() }] }
      assert.strictEqual((yield* Effect.flip(create(state, "2", "200", hidden))).code, "MISSING_PERMISSIONS")
      const made = yield* create(state, "3", "200", { ...hidden, permission_overwrites: [{ id: "100", type: 0, deny: Permission.MANAGE_CHANNELS.toString() }] })
      assert.deepStrictEqual(made.reply.permission_overwrites, [{ id: "100", type: 0, allow: "0", deny: Permission.MANAGE_CHANNELS.toString() }])
      const banning = { type: 0 as const, name: "x", permission_overwrites: [{ id: "11", type: 0 as const, allow: Permission.BAN_MEMBERS.toString() }] }
      assert.strictEqual((yield* Effect.flip(create(state, "3", "200", banning))).code, "MISSING_PERMISSIONS")
    }))

  it.effect("a channel created in a category without overwrites takes the category's", () =>
    Effect.gen(function*() {
      const category = yield* create(state, "1", "300", { type: 4, name: "Private", permission_overwrites: [{ id: "100", type: 0, deny: "1024" }] })
      const inside = yield* create(category.next, "1", "301", { type: 0, name: "x", parent_id: "300" })
      assert.deepStrictEqual(inside.reply.permission_overwrites, category.reply.permission_overwrites)
    }))

  it.effect("update renames and reparents with audit 11; the type cannot change", () =>
    Effect.gen(function*() {
      const s = yield* withCategory
      const update = (actorId: string, channelId: string, patch: typeof Channels.updateChannel.command.Type["patch"]) =>
        Channels.updateChannel.decide(s, Channels.updateChannel.command.make({ channelId: CarriedId.ChannelId.make(channelId), patch }), context(actorId))
      const moved = yield* update("2", "101", { name: "Main Hall", parent_id: "300", topic: "hi" })
      assert.deepStrictEqual([moved.reply.name, moved.reply.parent_id, moved.reply.topic], ["main-hall", "300", "hi"])
      assert.strictEqual(moved.audit[0]?.actionType, 11)
      assert.deepStrictEqual(moved.audit[0]?.changes.map((c) => c.key).sort(), ["name", "parent_id", "topic"])
      assert.strictEqual((yield* Effect.flip(update("2", "101", { type: 2 }))).code, "INVALID_FORM_BODY")
      assert.strictEqual(codeOf(yield* Effect.flip(update("2", "101", { rtc_region: "mars" }))), "INVALID_RTC_REGION")
      const same = yield* update("2", "101", { name: "general" })
      assert.deepStrictEqual([same.audit.length, same.events.length, same.next], [0, 0, s])
      assert.strictEqual((yield* Effect.flip(update("4", "101", { name: "x" }))).code, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* Effect.flip(update("2", "999", { name: "x" }))).code, "UNKNOWN_CHANNEL")
    }))

  it.effect("delete orphans children, clears the system channel, audits 12", () =>
    Effect.gen(function*() {
      const s = yield* withCategory
      const remove = (actorId: string, channelId: string) =>
        Channels.deleteChannel.decide(s, Channels.deleteChannel.command.make({ channelId: CarriedId.ChannelId.make(channelId) }), context(actorId))
      const category = yield* remove("2", "300")
      assert.strictEqual(category.next.channels.get("301")?.parent_id, null)
      assert.deepStrictEqual(category.events.map((e) => e.type), ["CHANNEL_DELETE", "CHANNEL_UPDATE"])
      const general = yield* remove("2", "101")
      assert.strictEqual(general.next.guild.system_channel_id, null)
      assert.strictEqual(general.audit[0]?.actionType, 12)
      assert.isTrue(general.events.some((e) => e.type === "GUILD_UPDATE"))
      assert.strictEqual((yield* Effect.flip(remove("4", "101"))).code, "MISSING_PERMISSIONS")
    }))

  it.effect("positions: after a sibling, into a category with its overwrites, with the documented errors", () =>
    Effect.gen(function*() {
      const category = yield* create(state, "1", "300", { type: 4, name: "Private", permission_overwrites: [{ id: "100", type: 0, deny: "1024" }] })
      const second = yield* create(category.next, "1", "302", { type: 0, name: "second" })
      const s = second.next
      const position = (actorId: string, items: typeof ChannelLayout.positionChannels.command.Type["items"]) =>
        ChannelLayout.positionChannels.decide(s, ChannelLayout.positionChannels.command.make({ items }), context(actorId))
      const reordered = yield* position("2", [{ id: "101", preceding_sibling_id: "302" }])
      const order = [...reordered.next.channels.values()].sort((a, b) => (a.position ?? 0) - (b.position ?? 0)).map((c) => c.id)
      assert.deepStrictEqual(order, ["300", "302", "101"])
      assert.isTrue(reordered.audit.every((e) => e.actionType === 11))
      const locked = yield* position("2", [{ id: "101", parent_id: "300", lock_permissions: true }])
      assert.deepStrictEqual(locked.next.channels.get("101")?.permission_overwrites, category.reply.permission_overwrites)
      assert.strictEqual(codeOf(yield* Effect.flip(position("2", [{ id: "101", preceding_sibling_id: "101" }]))), "CANNOT_POSITION_CHANNEL_RELATIVE_TO_ITSELF")
      assert.strictEqual(codeOf(yield* Effect.flip(position("2", [{ id: "101", parent_id: "302" }]))), "PARENT_MUST_BE_CATEGORY")
      assert.strictEqual(codeOf(yield* Effect.flip(position("2", [{ id: "300", parent_id: "300" }]))), "CANNOT_POSITION_CHANNEL_RELATIVE_TO_ITSELF")
      const twoCategories = yield* create(s, "1", "303", { type: 4, name: "Other" })
      const nested = ChannelLayout.positionChannels.decide(twoCategories.next, ChannelLayout.positionChannels.command.make({ items: [{ id: "303", parent_id: "300" }] }), context("2"))
      assert.strictEqual(codeOf(yield* Effect.flip(nested)), "CATEGORIES_CANNOT_HAVE_PARENT_CHANNEL")
      assert.strictEqual(codeOf(yield* Effect.flip(position("2", [{ id: "999" }]))), "ALL_CHANNELS_MUST_BELONG_TO_GUILD")
      assert.strictEqual((yield* Effect.flip(position("4", [{ id: "101", position: 0 }]))).code, "MISSING_PERMISSIONS")
    }))

  it.effect("overwrites: put creates (13) then updates (14), delete audits 15; no granting of bits one lacks", () =>
    Effect.gen(function*() {
      const put = (s: GuildState, actorId: string, overwriteId: string, type: 0 | 1, allow: bigint, deny: bigint) =>
        ChannelLayout.putOverwrite.decide(s, ChannelLayout.putOverwrite.command.make({
          channelId: CarriedId.ChannelId.make("101"), overwriteId, request: { type, allow: allow.toString(), deny: deny.toString() }
        }), context(actorId))
      const created = yield* put(state, "3", "4", 1, 0n, Permission.SEND_MESSAGES)
      assert.strictEqual(created.audit[0]?.actionType, 13)
      assert.deepStrictEqual(created.audit[0]?.options, { id: "4", type: "1" })
      const updated = yield* put(created.next, "3", "4", 1, 0n, Permission.SEND_MESSAGES | Permission.ADD_REACTIONS)
      assert.strictEqual(updated.audit[0]?.actionType, 14)
      assert.strictEqual(updated.next.channels.get("101")?.permission_overwrites?.length, 1)
      assert.strictEqual((yield* Effect.flip(put(state, "3", "4", 1, Permission.BAN_MEMBERS, 0n))).code, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* Effect.flip(put(state, "2", "4", 1, 0n, Permission.SEND_MESSAGES))).code, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* Effect.flip(put(state, "3", "77", 0, 0n, 0n))).code, "UNKNOWN_ROLE")
      const removed = yield* ChannelLayout.deleteOverwrite.decide(updated.next,
        ChannelLayout.deleteOverwrite.command.make({ channelId: CarriedId.ChannelId.make("101"), overwriteId: "4" }), context("3"))
      assert.strictEqual(removed.audit[0]?.actionType, 15)
      assert.deepStrictEqual(removed.next.channels.get("101")?.permission_overwrites, [])
    }))

  it.effect("reads list only what the viewer can see; a hidden channel is MISSING_ACCESS", () =>
    Effect.gen(function*() {
      const hidden = yield* create(state, "1", "200", { type: 0, name: "secret", permission_overwrites: [{ id: "100", type: 0, deny: "1024" }] })
      const s = hidden.next
      const list = (viewer: string) => Channels.listChannels.run(s, Channels.listChannels.query.make({}), viewer)
      assert.deepStrictEqual((yield* list("1")).map((c) => c.id), ["101", "200"])
      assert.deepStrictEqual((yield* list("4")).map((c) => c.id), ["101"])
      assert.strictEqual((yield* Effect.flip(list("9"))).code, "MISSING_ACCESS")
      const get = Channels.getChannel.run(s, Channels.getChannel.query.make({ channelId: CarriedId.ChannelId.make("200") }), "4")
      assert.strictEqual((yield* Effect.flip(get)).code, "MISSING_ACCESS")
    }))
})
