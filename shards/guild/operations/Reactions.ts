import { Effect, Schema } from "effect"
import { BadRequest, Forbidden, invalidField, missingPermissions } from "../../../src/model/Errors.ts"
import { EmojiRef } from "../../../src/model/ReactionEmoji.ts"
import { MessageResponse } from "../../../src/model/Messages.ts"
import { channelPermissions } from "../channels/ChannelPermissions.ts"
import {
  communicationDisabled,
  existingMessage,
  messagesOf,
  readableChannel,
  silenced,
  unknownMessage
} from "../messages/MessageAccess.ts"
import { knownAbsent } from "../messages/MessageWindow.ts"
import { type GuildEvent, read, unchanged, type WriteContext, write } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { deleteReactions, reactionRow } from "../messages/ReactionRows.ts"
import {
  emojiJson,
  emojiKey,
  MAX_REACTIONS,
  type MessageReactions,
  reactionsOf,
  type ShownEmoji,
  withReactions
} from "../messages/WindowReactions.ts"
import type { GuildState } from "../State.ts"
import { memberView } from "../members/GuildMember.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** GuildOperations (part C): reactions switched off for the guild. */
const REACTIONS_DISABLED = 32

/**
 * The message reacted to and its reactions as the decision sees them: the
 * window's (exact), or for a message older than the window the summary the
 * caller read from Postgres with it (`current.reactions`, `me` meaning the
 * caller), whose user lists hold at most the caller.
 */
const reactionTarget = (
  state: GuildState,
  channelId: string,
  messageId: string,
  current: MessageResponse | undefined,
  context: WriteContext
) =>
  Effect.gen(function*() {
    const channel = yield* readableChannel(state, context.actorId, channelId)
    const permissions = channelPermissions(state, context.actorId, channel, context.now)
    const messages = messagesOf(state, channelId)
    const message = yield* existingMessage(messages, messageId, current)
    const inWindow = messages.window.find(BigInt(messageId)) !== undefined
    const reactions: MessageReactions = inWindow
      ? reactionsOf(messages, messageId)
      : (message.reactions ?? []).map((r) => ({
        key: emojiKey({ id: r.emoji.id ?? null, name: r.emoji.name }),
        emoji: { id: r.emoji.id ?? null, name: r.emoji.name, animated: r.emoji.animated ?? false },
        users: r.me === true ? [context.actorId] : []
      }))
    return { permissions, messages, message, inWindow, reactions }
  })

type Target = Effect.Success<ReturnType<typeof reactionTarget>>

/** The state with the target's reactions replaced (window messages only: older ones live in Postgres alone). */
const nextState = (state: GuildState, channelId: string, target: Target, reactions: MessageReactions): GuildState =>
  target.inWindow
    ? { ...state, channelMessages: state.channelMessages.with(channelId, withReactions(target.messages, target.message.id, reactions)) }
    : state

const requireManageMessages = (permissions: bigint) =>
  has(permissions, Permission.MANAGE_MESSAGES) ? Effect.void : Effect.fail(missingPermissions())

/** The emoji to add: a custom one must be the guild's (shown with its current name). */
const addableEmoji = (state: GuildState, emoji: typeof EmojiRef.Type): Effect.Effect<ShownEmoji, BadRequest> => {
  if (emoji.id === null) return Effect.succeed({ id: null, name: emoji.name, animated: false })
  const custom = state.emojis.get(emoji.id)
  return custom === undefined
    ? Effect.fail(invalidField("emoji", "CUSTOM_EMOJI_NOT_FOUND", "Unknown custom emoji"))
    : Effect.succeed({ id: custom.id, name: custom.name, animated: custom.animated })
}

const reactionFields = {
  channelId: CarriedId.ChannelId,
  messageId: CarriedId.MessageId,
  emoji: EmojiRef,
  /** The message as the caller read it from Postgres (with reactions), when it is older than the window. */
  current: Schema.optional(MessageResponse)
}

/**
 * PUT .../reactions/{emoji}/@me: READ_MESSAGE_HISTORY to join a reaction,
 * ADD_REACTIONS too to start one, at most MAX_REACTIONS emojis a message.
 * Reacting twice changes nothing.
 */
export const addReaction = write("AddReaction", reactionFields, Schema.Null, (state, { channelId, messageId, emoji, current }, context) =>
  Effect.gen(function*() {
    const target = yield* reactionTarget(state, channelId, messageId, current, context)
    if (silenced(state, context.actorId, context.now)) return yield* communicationDisabled()
    if ((state.guild.disabled_operations & REACTIONS_DISABLED) !== 0 && !has(target.permissions, Permission.MANAGE_GUILD)) {
      return yield* new Forbidden({ code: "FEATURE_TEMPORARILY_DISABLED", message: "Reactions are disabled in this guild" })
    }
    const shown = yield* addableEmoji(state, emoji)
    const key = emojiKey(shown)
    const existing = target.reactions.find((r) => r.key === key)
    if (existing?.users.includes(context.actorId)) return unchanged(state, null)
    if (existing === undefined) {
      if (!has(target.permissions, Permission.ADD_REACTIONS)) return yield* missingPermissions()
      if (target.reactions.length >= MAX_REACTIONS) {
        return yield* new BadRequest({ code: "MAX_REACTIONS", message: `Maximum number of reactions reached (${MAX_REACTIONS})` })
      }
    }
    const reactions = existing === undefined
      ? [...target.reactions, { key, emoji: shown, users: [context.actorId] }]
      : target.reactions.map((r) => (r.key === key ? { ...r, users: [...r.users, context.actorId] } : r))
    const member = state.members.get(context.actorId)
    const event: GuildEvent = {
      type: "MESSAGE_REACTION_ADD",
      data: {
        user_id: context.actorId,
        channel_id: channelId,
        message_id: messageId,
        guild_id: context.guildId,
        member: member === undefined ? undefined : memberView(member),
        emoji: emojiJson(shown),
        message_author_id: target.message.author.id
      }
    }
    return {
      next: nextState(state, channelId, target, reactions),
      reply: null,
      rows: [reactionRow(channelId, messageId, key, shown, context.actorId, context.now, target.inWindow ? "added" : "added-to-older")],
      audit: [],
      events: [event]
    }
  }))

/**
 * DELETE .../reactions/{emoji}/@me and .../reactions/{emoji}/{user_id}: one's
 * own reaction, or anyone's with MANAGE_MESSAGES. Removing a reaction that is
 * not there changes nothing.
 */
export const removeReaction = write(
  "RemoveReaction",
  { ...reactionFields, userId: CarriedId.UserId },
  Schema.Null,
  (state, { channelId, messageId, emoji, userId, current }, context) =>
    Effect.gen(function*() {
      const target = yield* reactionTarget(state, channelId, messageId, current, context)
      if (userId !== context.actorId) yield* requireManageMessages(target.permissions)
      const key = emojiKey(emoji)
      const existing = target.reactions.find((r) => r.key === key)
      // Of an older message the caller knows only their own reactions: another user's may be there.
      const knownMissing = target.inWindow || userId === context.actorId
      if (knownMissing && !existing?.users.includes(userId)) return unchanged(state, null)
      const shown = existing?.emoji ?? { id: emoji.id, name: emoji.name, animated: false }
      const reactions = target.reactions
        .map((r) => (r.key === key ? { ...r, users: r.users.filter((u) => u !== userId) } : r))
        .filter((r) => r.users.length > 0)
      return {
        next: nextState(state, channelId, target, reactions),
        reply: null,
        rows: [reactionRow(channelId, messageId, key, shown, userId, context.now, "removed")],
        audit: [],
        events: [{
          type: "MESSAGE_REACTION_REMOVE",
          data: { user_id: userId, channel_id: channelId, message_id: messageId, guild_id: context.guildId, emoji: emojiJson(shown) }
        }]
      }
    })
)

/** DELETE .../reactions/{emoji}: every reaction with one emoji, MANAGE_MESSAGES. */
export const removeEmojiReactions = write("RemoveEmojiReactions", reactionFields, Schema.Null, (state, { channelId, messageId, emoji, current }, context) =>
  Effect.gen(function*() {
    const target = yield* reactionTarget(state, channelId, messageId, current, context)
    yield* requireManageMessages(target.permissions)
    const key = emojiKey(emoji)
    const existing = target.reactions.find((r) => r.key === key)
    if (target.inWindow && existing === undefined) return unchanged(state, null)
    const shown = existing?.emoji ?? { id: emoji.id, name: emoji.name, animated: false }
    return {
      next: nextState(state, channelId, target, target.reactions.filter((r) => r.key !== key)),
      reply: null,
      persist: deleteReactions(channelId, messageId, key),
      audit: [],
      events: [{
        type: "MESSAGE_REACTION_REMOVE_EMOJI",
        data: { channel_id: channelId, message_id: messageId, guild_id: context.guildId, emoji: emojiJson(shown) }
      }]
    }
  }))

/** DELETE .../reactions: every reaction of the message, MANAGE_MESSAGES. */
export const removeAllReactions = write(
  "RemoveAllReactions",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, current: Schema.optional(MessageResponse) },
  Schema.Null,
  (state, { channelId, messageId, current }, context) =>
    Effect.gen(function*() {
      const target = yield* reactionTarget(state, channelId, messageId, current, context)
      yield* requireManageMessages(target.permissions)
      if (target.inWindow && target.reactions.length === 0) return unchanged(state, null)
      return {
        next: nextState(state, channelId, target, []),
        reply: null,
        persist: deleteReactions(channelId, messageId),
        audit: [],
        events: [{
          type: "MESSAGE_REACTION_REMOVE_ALL",
          data: { channel_id: channelId, message_id: messageId, guild_id: context.guildId }
        }]
      }
    })
)

/**
 * GET .../reactions/{emoji}: the ids of who reacted, in id order after
 * `after`, from the window; null when the message is older (Postgres has it).
 */
export const reactionUsers = read(
  "ReactionUsers",
  { channelId: CarriedId.ChannelId, messageId: CarriedId.MessageId, emoji: EmojiRef, after: Schema.optional(Schema.String), limit: Schema.Int },
  Schema.NullOr(Schema.Array(Schema.String)),
  (state, { channelId, messageId, emoji, after, limit }, viewerId) =>
    Effect.gen(function*() {
      yield* readableChannel(state, viewerId, channelId)
      const messages = messagesOf(state, channelId)
      const id = BigInt(messageId)
      if (messages.window.find(id) === undefined) return knownAbsent(messages, id) ? yield* unknownMessage() : null
      const floor = after === undefined ? -1n : BigInt(after)
      const key = emojiKey(emoji)
      const users = reactionsOf(messages, messageId).find((r) => r.key === key)?.users ?? []
      return users
        .map((u) => BigInt(u))
        .filter((u) => u > floor)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, limit)
        .map(String)
    })
)

export const reactionWrites = [addReaction, removeReaction, removeEmojiReactions, removeAllReactions] as const
export const reactionReads = [reactionUsers] as const
