import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { firstIdAt } from "../../../shards/guild/messages/AuthorMessages.ts"
import { Sudo } from "../../auth/Sudo.ts"
import { AppConfig } from "../../platform/Config.ts"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { refreshAccount } from "../../users/AccountRefresh.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { AuthorMessagesRepo } from "../AuthorMessagesRepo.ts"
import { SelfDeletionRepo } from "./Repo.ts"

/** The highest snowflake of `ms`: the deletion takes the messages sent up to the request, not those after. */
const lastIdAt = (ms: number) => (firstIdAt(ms + 1) - 1n).toString()

const SelfDeletionHandlers = HttpApiBuilder.group(Api, "messageSelfDeletion", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const jobs = yield* SelfDeletionRepo
    const authorMessages = yield* AuthorMessagesRepo
    const sudo = yield* Sudo
    const { messageDeletionDelaySeconds } = yield* AppConfig
    const userActors = yield* UserActors

    return handlers
      .handle("request", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload ?? {})
          const now = Date.now()
          const cutoffId = lastIdAt(now)
          const counts = yield* authorMessages.count(me.id, cutoffId)
          yield* jobs.request({
            userId: me.id,
            cutoffId,
            startsAt: now + messageDeletionDelaySeconds * 1000,
            channelCount: counts.channel_count,
            messageCount: counts.message_count
          })
          // GET /users/@me shows the job (pending_bulk_message_deletion): the user's actor reads it.
          yield* refreshAccount(userActors, me.id)
        }))
      .handle("test", () => Effect.flatMap(CurrentUser, (me) => authorMessages.count(me.id, lastIdAt(Date.now()))))
      .handle("cancel", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          if (yield* jobs.cancel(me.id)) yield* refreshAccount(userActors, me.id)
          return { success: true } as const
        }))
  })))

/** POST and DELETE /users/@me/messages/delete, and the dry run. */
export const SelfDeletionHttp = perRequestMiddlewaresOnly(SelfDeletionHandlers).pipe(Layer.provide([SelfDeletionRepo.layer, AuthorMessagesRepo.layer]))
