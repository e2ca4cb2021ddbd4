import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { checkScheduledMessage } from "../../../shards/guild/operations/MessageJobs.ts"
import { Actors } from "../../guilds/Actors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { invalidField, unknown } from "../../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { Snowflakes } from "../../platform/Snowflake.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { ScheduledMessagesRepo } from "./Repo.ts"
import { dueInstant, payloadOf, type ScheduledMessageRequest } from "./Schemas.ts"
import { CarriedId, type ChannelId, type GuildId } from "../../model/Ids.ts"

/** No scheduled message of that id is the caller's. */
const unknownScheduled = () => unknown("MESSAGE")

const ScheduledHandlers = HttpApiBuilder.group(Api, "scheduledMessages", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const repo = yield* ScheduledMessagesRepo
    const snowflakes = yield* Snowflakes

    /** When it is due, after the checks of sending it now (the send checks them again when it is due). */
    const checked = (userId: string, channelId: ChannelId, guildId: GuildId, payload: ScheduledMessageRequest) =>
      Effect.gen(function*() {
        const now = Date.now()
        const scheduledAt = yield* dueInstant(payload, now)
        const request = payloadOf(payload)
        yield* actors.read(guildId, checkScheduledMessage, { channelId, request, now }, userId)
        return { request, scheduledAt, scheduledLocalAt: payload.scheduled_local_at, timezone: payload.timezone }
      })

    return handlers
      .handle("schedule", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* channels.guildOf(params.channel_id)
          const message = yield* checked(me.id, params.channel_id, guildId, payload)
          return yield* repo.insert({ ...message, id: snowflakes.next(), userId: me.id, channelId: params.channel_id, guildId })
        }))
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => repo.list(me.id)))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const found = yield* repo.find(me.id, params.scheduled_message_id)
          return found ?? (yield* unknownScheduled())
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const found = yield* repo.find(me.id, params.scheduled_message_id)
          if (found === undefined) return yield* unknownScheduled()
          const guildId = yield* channels.guildOf(found.channel_id)
          // The channel as our storage holds it.
          const change = yield* checked(me.id, CarriedId.ChannelId.make(found.channel_id), guildId, payload)
          const updated = yield* repo.update(me.id, params.scheduled_message_id, change)
          if (!updated) {
            return yield* invalidField("scheduled_local_at", "INVALID_SCHEDULED_MESSAGE_PAYLOAD", "The message was sent already")
          }
          return (yield* repo.find(me.id, params.scheduled_message_id)) ?? (yield* unknownScheduled())
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const removed = yield* repo.remove(me.id, params.scheduled_message_id)
          if (!removed) return yield* unknownScheduled()
        }))
  })))

/** The scheduled message routes, with their Postgres side. */
export const ScheduledMessagesHttp = perRequestMiddlewaresOnly(ScheduledHandlers).pipe(
  Layer.provide([ChannelLookup.layer, ScheduledMessagesRepo.layer])
)
