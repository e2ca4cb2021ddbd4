import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as MessageReads from "../../../shards/guild/operations/MessageReads.ts"
import * as Pins from "../../../shards/guild/operations/Pins.ts"
import { Dms } from "../../dms/Dms.ts"
import { Actors } from "../../guilds/Actors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { olderCopies } from "../OlderCopies.ts"
import { DEFAULT_PIN_LIMIT } from "./Api.ts"
import { PinsRepo } from "./Repo.ts"
import { ReactionsRepo } from "../reactions/Repo.ts"
import { MessagesRepo } from "../Repo.ts"
import type { MessagePath } from "../../http/Paths.ts"

const PinsHandlers = HttpApiBuilder.group(Api, "pins", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const pins = yield* PinsRepo
    const reactions = yield* ReactionsRepo
    const olderCopy = yield* olderCopies
    const dms = yield* Dms

    /** Pin or unpin: the message comes from Postgres when the window does not hold it. */
    const pinning = (pin: boolean, params: MessagePath) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        yield* channels.byOwner(params.channel_id, {
          dm: () => dms.pin(params.channel_id, me.id, params.message_id, pin),
          guild: (guildId) =>
            Effect.flatMap(olderCopy(guildId, params.channel_id, params.message_id, me.id), (current) => {
              const fields = { channelId: params.channel_id, messageId: params.message_id, current }
              return pin
                ? actors.write(guildId, Pins.pinMessage, fields, { actorId: me.id })
                : actors.write(guildId, Pins.unpinMessage, fields, { actorId: me.id })
            })
        })
      })

    return handlers
      .handle("list", ({ params, query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.recipient(params.channel_id, me.id),
            guild: (guildId) => actors.read(guildId, Pins.viewPins, { channelId: params.channel_id }, me.id)
          })
          const page = yield* pins.page(params.channel_id, query.before, query.limit ?? DEFAULT_PIN_LIMIT)
          const messages = yield* reactions.withReactions(page.items.map((i) => i.message), me.id)
          return {
            items: page.items.map((item, i) => ({ message: messages[i] ?? item.message, pinned_at: item.pinned_at })),
            has_more: page.hasMore
          }
        }))
      .handle("pin", ({ params }) => pinning(true, params))
      .handle("unpin", ({ params }) => pinning(false, params))
      .handle("ack", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* channels.byOwner(params.channel_id, {
            dm: () => dms.recipient(params.channel_id, me.id),
            guild: (guildId) => actors.read(guildId, MessageReads.viewMessageChannel, { channelId: params.channel_id }, me.id)
          })
          yield* pins.ack(me.id, params.channel_id, new Date().toISOString())
        }))
  })))

/** The pin routes, with their Postgres side (pins of any age are listed from Postgres). */
export const PinsHttp = perRequestMiddlewaresOnly(PinsHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, PinsRepo.layer, ReactionsRepo.layer, Dms.layer])
)
