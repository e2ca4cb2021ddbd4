import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createEmoji, createEmojis, deleteEmoji, updateSticker, createSticker } from "../../../shards/guild/operations/Expressions.ts"
import type { WriteContext } from "../../../shards/guild/Definitions.ts"
import { createGuild, type GuildState } from "../../../shards/guild/State.ts"
import { SharedMap } from "../../../shards/guild/SharedMap.ts"
import { CarriedId } from "../../../src/model/Ids.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })
const context: WriteContext = { guildId: "100", actorId: "1", operationId: "5000", reason: null, limits: defaultLimits, now: Date.parse("2026-02-01T00:00:00Z") }

const withFeatures = (state: GuildState, features: ReadonlyArray<string>): GuildState => ({ ...state, guild: { ...state.guild, features } })
const image = (id: number, animated = false) => ({ id: String(id), mediaHash: "a".repeat(64), animated })
const items = (count: number, animated = false, from = 1000) =>
  Array.from({ length: count }, (_, i) => ({ ...image(from + i, animated), name: `e_${from + i}` }))

const bulk = (state: GuildState, emojis: ReturnType<typeof items>) =>
  Effect.runSync(createEmojis.decide(state, createEmojis.command.make({ emojis }), context))

describe("expression decisions", () => {
  it("creates an emoji with its creator, an audit entry and a GUILD_EMOJIS_UPDATE", () => {
    const decision = Effect.runSync(createEmoji.decide(base, createEmoji.command.make({ emoji: { ...image(7), name: "hi" } }), context))
    assert.deepStrictEqual(decision.reply, { id: "7", name: "hi", animated: false, nsfw: false })
    assert.strictEqual(decision.next.emojis.get("7")?.creator.id, "1")
    assert.deepStrictEqual(decision.audit, [{ actionType: 60, targetId: "7", changes: [{ key: "name", new_value: "hi" }] }])
    assert.deepStrictEqual(decision.events, [
      { type: "GUILD_EMOJIS_UPDATE", data: { guild_id: "100", emojis: [{ id: "7", name: "hi", animated: false, nsfw: false }] } }
    ])
    assert.strictEqual(base.emojis.size, 0)
  })

  it("counts static and animated emojis apart, 50 each by default", () => {
    const full = bulk(base, items(50)).next
    const more = bulk(full, [...items(1, false, 2000), ...items(2, true, 3000)])
    assert.deepStrictEqual(more.reply.failed, [{ name: "e_2000", error: "MAX_EMOJIS" }])
    assert.strictEqual(more.reply.success.length, 2)
    const exit = Effect.runSyncExit(createEmoji.decide(full, createEmoji.command.make({ emoji: { ...image(9), name: "x9" } }), context))
    assert.ok(Exit.isFailure(exit))
    expect(JSON.stringify(exit.cause)).toContain("MAX_EMOJIS")
  })

  it("raises the limit to 250 with MORE_EMOJI and lifts it with UNLIMITED_EMOJI", () => {
    const full = bulk(base, items(50)).next
    assert.strictEqual(bulk(withFeatures(full, ["MORE_EMOJI"]), items(10, false, 2000)).reply.success.length, 10)
    const many = bulk(withFeatures(base, ["MORE_EMOJI"]), items(250)).next
    assert.strictEqual(bulk(many, items(1, false, 5000)).reply.failed.length, 1)
    assert.strictEqual(bulk(withFeatures(many, ["UNLIMITED_EMOJI"]), items(1, false, 5000)).reply.success.length, 1)
  })

  it("lets only managers or the creator holding CREATE_EXPRESSIONS delete, and 404s unknown ids", () => {
    const member = { user: user("2"), roles: [], joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false }
    const state = { ...bulk(base, items(1)).next, members: SharedMap.from([...base.members, ["2", member]]) }
    const byMember = Effect.runSyncExit(deleteEmoji.decide(state, deleteEmoji.command.make({ emojiId: CarriedId.EmojiId.make("1000") }), { ...context, actorId: "2" }))
    expect(JSON.stringify(byMember)).toContain("MISSING_PERMISSIONS")
    const unknown = Effect.runSyncExit(deleteEmoji.decide(state, deleteEmoji.command.make({ emojiId: CarriedId.EmojiId.make("1") }), context))
    expect(JSON.stringify(unknown)).toContain("UNKNOWN_EMOJI")
    const byOwner = Effect.runSync(deleteEmoji.decide(state, deleteEmoji.command.make({ emojiId: CarriedId.EmojiId.make("1000") }), context))
    assert.strictEqual(byOwner.next.emojis.size, 0)
    assert.deepStrictEqual(byOwner.audit, [{ actionType: 62, targetId: "1000", changes: [{ key: "name", old_value: "e_1000" }] }])
  })

  it("updates a sticker's description to empty on null and audits only what changed", () => {
    const sticker = { ...image(8), name: "st", description: "old", tags: ["a"] }
    const state = Effect.runSync(createSticker.decide(base, createSticker.command.make({ sticker }), context)).next
    const decision = Effect.runSync(updateSticker.decide(
      state,
      updateSticker.command.make({ stickerId: CarriedId.StickerId.make("8"), patch: { name: "st", description: null } }),
      context
    ))
    assert.strictEqual(decision.reply.description, "")
    assert.deepStrictEqual(decision.audit[0]?.changes, [{ key: "description", old_value: "old", new_value: "" }])
    assert.strictEqual(decision.events[0]?.type, "GUILD_STICKERS_UPDATE")
  })
})
