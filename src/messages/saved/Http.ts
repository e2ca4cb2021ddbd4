import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as MessageReads from "../../../shards/guild/operations/MessageReads.ts"
import { listSaved, saveMessage, unsaveMessage } from "../../../shards/user/operations/SavedMessages.ts"
import { Actors } from "../../guilds/Actors.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { unknown } from "../../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { ChannelLookup } from "../ChannelLookup.ts"
import { MessagesRepo } from "../Repo.ts"
import { DEFAULT_SAVED_LIMIT, type SavedMessageEntryResponse } from "./Api.ts"
import { SavedMessagesRepo } from "./Repo.ts"
import { MessageVisibility } from "../Visibility.ts"

const SavedMessagesHandlers = HttpApiBuilder.group(Api, "savedMessages", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const channels = yield* ChannelLookup
    const messages = yield* MessagesRepo
    const saved = yield* SavedMessagesRepo
    const users = yield* UserActors
    const visibility = yield* MessageVisibility

    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          // Which messages, from the user's actor; the messages themselves, from their channels' storage.
          const entries = yield* saved.render(yield* users.read(me.id, listSaved, { limit: query.limit ?? DEFAULT_SAVED_LIMIT }))
          const guildIds = [...new Set(entries.flatMap((e) => (e.guildId === null ? [] : [e.guildId])))]
          const readable = new Set((yield* visibility.readable(me.id, guildIds)).flatMap((g) => g.channels.map((c) => c.id)))
          return entries.map((e): SavedMessageEntryResponse => {
            const available = readable.has(e.channelId)
            return {
              id: e.messageId,
              channel_id: e.channelId,
              message_id: e.messageId,
              status: available ? "available" : "missing_permissions",
              message: available ? e.message : null
            }
          })
        }))
      .handle("save", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const guildId = yield* channels.guildOf(payload.channel_id)
          // The read checks the user may read the channel; older messages than the window are looked up in Postgres.
          const json = yield* actors.read(guildId, MessageReads.getMessage, {
            channelId: payload.channel_id,
            messageId: payload.message_id
          }, me.id)
          if (json === null && (yield* messages.find(payload.channel_id, payload.message_id)) === undefined) {
            return yield* unknown("MESSAGE")
          }
          yield* users.write(me.id, saveMessage, { channelId: payload.channel_id, messageId: payload.message_id }, { actorId: me.id })
        }))
      .handle("unsave", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* users.write(me.id, unsaveMessage, { messageId: params.message_id }, { actorId: me.id })
        }))
  })))

export const SavedMessagesHttp = perRequestMiddlewaresOnly(SavedMessagesHandlers).pipe(
  Layer.provide([ChannelLookup.layer, MessagesRepo.layer, SavedMessagesRepo.layer, MessageVisibility.layer])
)
