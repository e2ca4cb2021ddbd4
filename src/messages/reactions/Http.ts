import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Reactions from "../../../shards/guild/operations/Reactions.ts"
import { emojiKey } from "../../../shards/guild/messages/WindowReactions.ts"
import { Actors } from "../../guilds/Actors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { invalidField, unknown } from "../../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { RateLimitLive } from "../../ratelimit/RateLimitLive.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { olderCopies } from "../OlderCopies.ts"
import { parseEmoji } from "../../model/ReactionEmoji.ts"
import { DEFAULT_REACTION_LIMIT } from "./Api.ts"
import { ReactionsRepo } from "./Repo.ts"
import { MessagesRepo } from "../Repo.ts"
import type { MessagePath } from "../../http/Paths.ts"

/** The path's emoji (the route's schema already refused text naming none). */
const emojiOf = (text: string) =>
  Effect.fromNullishOr(parseEmoji(text)).pipe(
    Effect.mapError(() => invalidField("emoji", "NOT_A_VALID_UNICODE_EMOJI", "Not an emoji, nor a custom emoji as name:id"))
  )

const ReactionsHandlers = HttpApiBuilder.group(Api, "reactions", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const messages = yield* MessagesRepo
    const reactions = yield* ReactionsRepo
    const olderCopy = yield* olderCopies

    /** Who is asking, the guild, and the message when it is older than the window. */
    const target = (params: MessagePath) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        const guildId = yield* channels.guildOf(params.channel_id)
        const current = yield* olderCopy(guildId, params.channel_id, params.message_id, me.id)
        return { me, guildId, fields: { channelId: params.channel_id, messageId: params.message_id, current } }
      })

    /** `limit` user ids of a reaction after `after`: from the actor's window, else Postgres. */
    const userIds = (params: MessagePath & { readonly emoji: string }, after: string | undefined, limit: number) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        const emoji = yield* emojiOf(params.emoji)
        const guildId = yield* channels.guildOf(params.channel_id)
        const query = { channelId: params.channel_id, messageId: params.message_id, emoji, after, limit }
        const fromWindow = yield* actors.read(guildId, Reactions.reactionUsers, query, me.id)
        if (fromWindow !== null) return fromWindow
        if ((yield* messages.find(params.channel_id, params.message_id)) === undefined) return yield* unknown("MESSAGE")
        return yield* reactions.userIds(params.channel_id, params.message_id, emojiKey(emoji), after, limit)
      })

    return handlers
      .handle("add", ({ params }) =>
        Effect.gen(function*() {
          const emoji = yield* emojiOf(params.emoji)
          const { me, guildId, fields } = yield* target(params)
          yield* actors.write(guildId, Reactions.addReaction, { ...fields, emoji }, { actorId: me.id })
        }))
      .handle("removeOwn", ({ params }) =>
        Effect.gen(function*() {
          const emoji = yield* emojiOf(params.emoji)
          const { me, guildId, fields } = yield* target(params)
          yield* actors.write(guildId, Reactions.removeReaction, { ...fields, emoji, userId: me.id }, { actorId: me.id })
        }))
      .handle("removeUser", ({ params }) =>
        Effect.gen(function*() {
          const emoji = yield* emojiOf(params.emoji)
          const { me, guildId, fields } = yield* target(params)
          yield* actors.write(guildId, Reactions.removeReaction, { ...fields, emoji, userId: params.target_id }, { actorId: me.id })
        }))
      .handle("removeEmoji", ({ params }) =>
        Effect.gen(function*() {
          const emoji = yield* emojiOf(params.emoji)
          const { me, guildId, fields } = yield* target(params)
          yield* actors.write(guildId, Reactions.removeEmojiReactions, { ...fields, emoji }, { actorId: me.id })
        }))
      .handle("removeAll", ({ params }) =>
        Effect.gen(function*() {
          const { me, guildId, fields } = yield* target(params)
          yield* actors.write(guildId, Reactions.removeAllReactions, fields, { actorId: me.id })
        }))
      .handle("users", ({ params, query }) =>
        Effect.flatMap(userIds(params, query.after, query.limit ?? DEFAULT_REACTION_LIMIT), reactions.users))
      .handle("usersPage", ({ params, query }) =>
        Effect.gen(function*() {
          const limit = query.limit ?? DEFAULT_REACTION_LIMIT
          // One more than asked: whether it came says if there are more.
          const ids = yield* userIds(params, query.after, limit + 1)
          const page = ids.slice(0, limit)
          const hasMore = ids.length > limit
          return { items: yield* reactions.users(page), has_more: hasMore, next_after: hasMore ? page[page.length - 1] ?? null : null }
        }))
  })))

/** The reaction routes, with their Postgres side for messages older than the actors' windows. */
export const ReactionsHttp = perRequestMiddlewaresOnly(ReactionsHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, ReactionsRepo.layer, RateLimitLive])
)
