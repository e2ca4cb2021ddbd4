import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { entryOf } from "../../shards/guild/messages/MessageRows.ts"
import { appended, NO_MESSAGES } from "../../shards/guild/messages/MessageWindow.ts"
import { deleteAttachment } from "../../shards/guild/operations/MessageAttachments.ts"
import { bulkDeleteMessages, deleteMessage, editMessage } from "../../shards/guild/operations/MessageEdits.ts"
import type { GuildState } from "../../shards/guild/State.ts"
import type { MessageUpdateRequest } from "../../src/model/MessageRequests.ts"
import type { MessageResponse } from "../../src/model/Messages.ts"
import { SNOWFLAKE_EPOCH } from "../../src/platform/Snowflake.ts"
import { codeOf, contextOf, guild, NOW, sendIn } from "./GuildState.ts"
import { CarriedId } from "../../src/model/Ids.ts"

const edit = (state: GuildState, actorId: string, messageId: string, patch: MessageUpdateRequest, current?: MessageResponse) =>
  editMessage.decide(state, editMessage.command.make({ channelId: CarriedId.ChannelId.make("101"), messageId: CarriedId.MessageId.make(messageId), patch, current }), contextOf(actorId, NOW + 1000))
const remove = (state: GuildState, actorId: string, messageId: string, current?: MessageResponse) =>
  deleteMessage.decide(state, deleteMessage.command.make({ channelId: CarriedId.ChannelId.make("101"), messageId: CarriedId.MessageId.make(messageId), current }), contextOf(actorId))
const bulk = (state: GuildState, actorId: string, messageIds: ReadonlyArray<string>) =>
  bulkDeleteMessages.decide(state, bulkDeleteMessages.command.make({ channelId: CarriedId.ChannelId.make("101"), messageIds: messageIds.map((id) => CarriedId.MessageId.make(id)) }), contextOf(actorId))

/** A snowflake made `daysAgo` days before NOW. */
const idFrom = (daysAgo: number) => ((BigInt(NOW - daysAgo * 86_400_000) - SNOWFLAKE_EPOCH) << 22n).toString()

describe("message edit and delete decisions", () => {
  it.effect("the author edits: content, mentions and edited_timestamp change, the window and MESSAGE_UPDATE follow", () =>
    Effect.gen(function*() {
      const { state, message } = yield* sendIn(guild, "2", "101", { content: "first <@3>" })
      const decision = yield* edit(state, "2", message.id, { content: "second" })
      expect(decision.reply).toMatchObject({ id: message.id, content: "second", mentions: [], edited_timestamp: new Date(NOW + 1000).toISOString() })
      assert.include(decision.next.channelMessages.get("101")?.window.find(BigInt(message.id))?.json ?? "", "second")
      assert.deepStrictEqual(decision.events.map((e) => e.type), ["MESSAGE_UPDATE"])
      expect(decision.events[0]?.data).toMatchObject({ guild_id: "100", content: "second" })
      // The author's member, as discord.js reads `message.member`; without `user`, which the message's author is.
      const member = state.members.get("2")
      expect(decision.events[0]?.data).toMatchObject({ member: { roles: member?.roles, joined_at: member?.joined_at } })
      expect(decision.events[0]?.data).not.toHaveProperty("member.user")
      const same = yield* edit(state, "2", message.id, { content: "first <@3>" })
      assert.strictEqual(same.next, state)
    }))

  it.effect("others may not edit; a moderator may only suppress embeds", () =>
    Effect.gen(function*() {
      const { state, message } = yield* sendIn(guild, "2", "101", { content: "mine" })
      assert.strictEqual((yield* Effect.flip(edit(state, "3", message.id, { content: "theirs" }))).code, "CANNOT_EDIT_OTHER_USER_MESSAGE")
      assert.strictEqual((yield* Effect.flip(edit(state, "4", message.id, { flags: 4 }))).code, "CANNOT_EDIT_OTHER_USER_MESSAGE")
      const suppressed = yield* edit(state, "3", message.id, { flags: 4 | 4096 })
      assert.strictEqual(suppressed.reply.flags, 4)
      assert.strictEqual(suppressed.reply.edited_timestamp, null)
    }))

  it.effect("edit rules: not empty, only its own attachments, forwards stay as they are, timed-out members wait", () =>
    Effect.gen(function*() {
      const { state, message } = yield* sendIn(guild, "2", "101", { content: "text" })
      const code = (actorId: string, id: string, patch: MessageUpdateRequest) => Effect.map(Effect.flip(edit(state, actorId, id, patch)), codeOf)
      assert.strictEqual(yield* code("2", message.id, { content: "" }), "CANNOT_SEND_EMPTY_MESSAGE")
      assert.strictEqual(yield* code("2", message.id, { attachments: [{ id: "5" }] }), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")
      assert.strictEqual(yield* code("2", "12345", { content: "x" }), "UNKNOWN_MESSAGE")
      const forward = yield* sendIn(state, "2", "101", { message_reference: { type: 1, channel_id: "101", message_id: message.id } })
      const forwarded = yield* Effect.flip(edit(forward.state, "2", forward.message.id, { content: "x" }))
      assert.strictEqual(codeOf(forwarded), "MESSAGES_WITH_SNAPSHOTS_CANNOT_BE_EDITED")
      // Member 5's timeout runs until an hour after NOW: sent once it is over, edited while it runs.
      const silenced = yield* sendIn(guild, "5", "101", { content: "later" }, NOW + 7200_000)
      const refused = yield* Effect.flip(edit(silenced.state, "5", silenced.message.id, { content: "x" }))
      assert.strictEqual(refused.code, "COMMUNICATION_DISABLED")
    }))

  it.effect("an edit of a message older than the window works from the caller's copy and leaves the window alone", () =>
    Effect.gen(function*() {
      const first = yield* sendIn(guild, "2", "101", { content: "old" })
      let state = first.state
      for (let i = 0; i < 110; i++) state = (yield* sendIn(state, "3", "101", { content: `m${i}` })).state
      assert.strictEqual((yield* Effect.flip(edit(state, "2", first.message.id, { content: "new" }))).code, "UNKNOWN_MESSAGE")
      const decision = yield* edit(state, "2", first.message.id, { content: "new" }, first.message)
      assert.strictEqual(decision.reply.content, "new")
      assert.strictEqual(decision.next, state)
    }))

  it.effect("delete: the author, or MANAGE_MESSAGES with an audit entry", () =>
    Effect.gen(function*() {
      const { state, message } = yield* sendIn(guild, "2", "101", { content: "bye" })
      const own = yield* remove(state, "2", message.id)
      assert.deepStrictEqual(own.audit, [])
      assert.isUndefined(own.next.channelMessages.get("101")?.window.find(BigInt(message.id)))
      assert.deepStrictEqual(own.events, [{
        type: "MESSAGE_DELETE",
        data: { id: message.id, channel_id: "101", guild_id: "100", content: "bye", author_id: "2" }
      }])
      const moderated = yield* remove(state, "3", message.id)
      assert.deepStrictEqual(moderated.audit, [{ actionType: 72, targetId: "2", changes: [], options: { channel_id: "101", count: "1" } }])
      assert.strictEqual((yield* Effect.flip(remove(state, "6", message.id))).code, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* Effect.flip(remove(own.next, "2", message.id))).code, "UNKNOWN_MESSAGE")
    }))

  it.effect("bulk delete: MANAGE_MESSAGES, 2 to 100 ids, none older than 14 days", () =>
    Effect.gen(function*() {
      const a = yield* sendIn(guild, "2", "101", { content: "a" })
      const b = yield* sendIn(a.state, "2", "101", { content: "b" })
      const ids = [a.message.id, b.message.id]
      assert.strictEqual((yield* Effect.flip(bulk(b.state, "2", ids))).code, "MISSING_PERMISSIONS")
      assert.strictEqual(codeOf(yield* Effect.flip(bulk(b.state, "3", []))), "MESSAGE_IDS_CANNOT_BE_EMPTY")
      const one = yield* Effect.flip(bulk(b.state, "3", [a.message.id, a.message.id]))
      expect(one).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "messages" }] })
      const old = yield* Effect.flip(bulk(b.state, "3", [idFrom(1), idFrom(15)]))
      expect(old).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "messages.1" }] })
      const done = yield* bulk(b.state, "3", [...ids, idFrom(13)])
      assert.strictEqual(done.next.channelMessages.get("101")?.window.size, 0)
      assert.deepStrictEqual(done.audit, [{ actionType: 73, targetId: "101", changes: [], options: { count: "3" } }])
      expect(done.events[0]).toMatchObject({ type: "MESSAGE_DELETE_BULK", data: { ids: [...ids, idFrom(13)], channel_id: "101", guild_id: "100" } })
    }))

  it.effect("attachment removal: the author or MANAGE_MESSAGES; a message left with nothing is deleted", () =>
    Effect.gen(function*() {
      const { message } = yield* sendIn(guild, "2", "101", { content: "files" })
      const file = (id: string) => ({ id, filename: `${id}.png`, size: 10, flags: 0 })
      const withFiles: MessageResponse = { ...message, content: "", attachments: [file("71"), file("72")] }
      const state: GuildState = {
        ...guild,
        channelMessages: guild.channelMessages.with("101", appended(NO_MESSAGES, entryOf(withFiles)))
      }
      const detach = (s: GuildState, actorId: string, attachmentId: string) =>
        deleteAttachment.decide(s, deleteAttachment.command.make({ channelId: CarriedId.ChannelId.make("101"), messageId: CarriedId.MessageId.make(message.id), attachmentId: CarriedId.AttachmentId.make(attachmentId) }), contextOf(actorId))
      const one = yield* detach(state, "2", "71")
      expect(one.events[0]).toMatchObject({ type: "MESSAGE_UPDATE", data: { attachments: [{ id: "72" }], guild_id: "100" } })
      assert.strictEqual((yield* Effect.flip(detach(state, "6", "71"))).code, "MISSING_PERMISSIONS")
      assert.strictEqual(codeOf(yield* Effect.flip(detach(one.next, "2", "71"))), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")
      const last = yield* detach(one.next, "3", "72")
      assert.strictEqual(last.events[0]?.type, "MESSAGE_DELETE")
      assert.isUndefined(last.next.channelMessages.get("101")?.window.find(BigInt(message.id)))
    }))
})
