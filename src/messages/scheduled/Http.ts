import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { checkScheduledMessage } from "../../../shards/guild/operations/MessageJobs.ts"
import {
  deleteScheduledMessage,
  getScheduledMessage,
  listScheduledMessages,
  scheduleMessage,
  updateScheduledMessage
} from "../../../shards/user/operations/ScheduledMessages.ts"
import { Actors } from "../../guilds/Actors.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { dueInstant, payloadOf, type ScheduledMessageRequest } from "./Schemas.ts"
import { checkContentLength } from "../ContentLength.ts"
import { Limits } from "../../platform/Limits.ts"
import { CarriedId, type ChannelId, type GuildId } from "../../model/Ids.ts"

/**
 * The scheduled message routes: the guild checks the send when it is
 * scheduled or edited, the author's actor keeps the messages
 * (shards/user/operations/ScheduledMessages.ts).
 */
const ScheduledHandlers = HttpApiBuilder.group(Api, "scheduledMessages", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const users = yield* UserActors
    const channels = yield* ChannelLookup
    const snowflakes = yield* Snowflakes
    const limits = yield* Limits

    /** When it is due, after the checks of sending it now (the send checks them again when it is due). */
    const checked = (userId: string, channelId: ChannelId, guildId: GuildId, payload: ScheduledMessageRequest) =>
      Effect.gen(function*() {
        const now = Date.now()
        const scheduledAt = yield* dueInstant(payload, now)
        const request = payloadOf(payload)
        yield* checkContentLength(limits.get, request.content)
        yield* actors.read(guildId, checkScheduledMessage, { channelId, request, now }, userId)
        return { request, scheduledAt, scheduledLocalAt: payload.scheduled_local_at, timezone: payload.timezone }
      })

    return handlers
      .handle("schedule", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* channels.guildOf(params.channel_id)
          const message = yield* checked(me.id, params.channel_id, guildId, payload)
          return yield* users.write(me.id, scheduleMessage, { ...message, id: snowflakes.next(), channelId: params.channel_id, guildId }, {
            actorId: me.id
          })
        }))
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => users.readAsResponse(me.id, listScheduledMessages, {})))
      .handle("get", ({ params }) =>
        Effect.flatMap(CurrentUser, (me) => users.readAsResponse(me.id, getScheduledMessage, { id: params.scheduled_message_id })))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const found = yield* users.read(me.id, getScheduledMessage, { id: params.scheduled_message_id })
          const guildId = yield* channels.guildOf(found.channel_id)
          // The channel as our storage holds it.
          const change = yield* checked(me.id, CarriedId.ChannelId.make(found.channel_id), guildId, payload)
          // The actor refuses it if the sweep began sending it meanwhile.
          return yield* users.writeAsResponse(me.id, updateScheduledMessage, { ...change, id: params.scheduled_message_id }, { actorId: me.id })
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* users.write(me.id, deleteScheduledMessage, { id: params.scheduled_message_id }, { actorId: me.id })
        }))
  })))

/** The scheduled message routes. */
export const ScheduledMessagesHttp = perRequestMiddlewaresOnly(ScheduledHandlers).pipe(Layer.provide(ChannelLookup.layer))
