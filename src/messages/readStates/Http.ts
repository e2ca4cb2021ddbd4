import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ackMessages } from "../../../shards/guild/operations/MessageAcks.ts"
import { Dms } from "../../dms/Dms.ts"
import { Actors } from "../../guilds/Actors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { unknown } from "../../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { MentionsRepo } from "./MentionsRepo.ts"
import { DEFAULT_MENTION_LIMIT } from "./Api.ts"
import { MessageVisibility, type ReadableGuild } from "../Visibility.ts"
import type { GuildId } from "../../model/Ids.ts"

/** The guilds `guilds` keeps: all (undefined), none, or the listed ones. */
const guildFilter = (guilds: string | undefined): ReadonlyArray<string> | undefined =>
  guilds === undefined || guilds === "true" ? undefined : guilds === "false" ? [] : guilds.split(",")

const channelIdsOf = (readable: ReadonlyArray<ReadableGuild>) => readable.flatMap((g) => g.channels.map((c) => c.id))
const roleIdsOf = (readable: ReadonlyArray<ReadableGuild>) => readable.flatMap((g) => g.role_ids)

const ReadStatesHandlers = HttpApiBuilder.group(Api, "readStates", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const visibility = yield* MessageVisibility
    const mentions = yield* MentionsRepo
    const dms = yield* Dms

    return handlers
      .handle("ackBulk", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          // The last ack of a channel wins; each guild's actor takes its channels in one write.
          const latest = new Map(payload.read_states.map((r) => [r.channel_id, r.message_id]))
          const byGuild = new Map<GuildId, Array<{ channelId: string; messageId: string }>>()
          const inDms: Array<[string, string]> = []
          for (const [channelId, messageId] of latest) {
            yield* channels.byOwner(channelId, {
              dm: () => Effect.sync(() => inDms.push([channelId, messageId])),
              guild: (guildId) => Effect.sync(() => byGuild.set(guildId, [...(byGuild.get(guildId) ?? []), { channelId, messageId }]))
            })
          }
          yield* Effect.forEach(byGuild, ([guildId, acks]) => actors.write(guildId, ackMessages, { acks }, { actorId: me.id }), {
            concurrency: "unbounded",
            discard: true
          })
          yield* Effect.forEach(inDms, ([channelId, messageId]) => dms.ack(channelId, me.id, messageId, {}), { discard: true })
        }))
      .handle("mentions", ({ query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const readable = yield* visibility.readable(me.id, guildFilter(query.guilds))
          return yield* mentions.list({
            userId: me.id,
            channelIds: channelIdsOf(readable),
            roleIds: roleIdsOf(readable),
            roles: query.roles !== "false",
            everyone: query.everyone !== "false",
            before: query.before,
            limit: query.limit ?? DEFAULT_MENTION_LIMIT
          })
        }))
      .handle("dismissMention", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const readable = yield* visibility.readable(me.id)
          const found = yield* mentions.dismiss(me.id, params.message_id, channelIdsOf(readable), roleIdsOf(readable))
          if (!found) return yield* unknown("MESSAGE")
        }))
  })))

/** Read states and mentions, with the cross-guild read path they filter by. */
export const ReadStatesHttp = perRequestMiddlewaresOnly(ReadStatesHandlers).pipe(
  Layer.provide([ChannelLookup.layer, Dms.layer, MentionsRepo.layer, MessageVisibility.layer])
)
