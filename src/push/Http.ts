import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { listPushSubscriptions, removePushSubscription, subscribePush } from "../../shards/user/operations/PushSubscriptions.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { BadRequest, unauthorized } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { normalizeKey } from "./Keys.ts"
import { PushRepo } from "./Repo.ts"

/**
 * The session was signed out after the check and before the actor's commit:
 * its row's foreign key refused the subscription (shards/actors/Refusals.ts).
 */
const refusedRow = (e: unknown) => e instanceof BadRequest && e.code === "CONFLICT"

/** The push subscription routes, through the user's actor (shards/user/operations/PushSubscriptions.ts). */
const PushHandlers = HttpApiBuilder.group(Api, "push", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* PushRepo
    const users = yield* UserActors
    return handlers
      .handle("subscribe", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          // A session signed out meanwhile subscribes nothing (authentication may have found it in its cache).
          if (!(yield* repo.sessionExists(me.id, me.session.tokenHash))) return yield* unauthorized()
          const id = yield* users.write(me.id, subscribePush, {
            // Taken only if the endpoint is new; made here, as a decision makes no ids of its own.
            id: randomBytes(16).toString("hex"),
            sessionHash: me.session.tokenHash.toString("hex"),
            endpoint: payload.endpoint,
            p256dh: normalizeKey(payload.keys.p256dh),
            auth: normalizeKey(payload.keys.auth),
            userAgent: payload.user_agent ?? null
          }, { actorId: me.id }).pipe(Effect.catchIf(refusedRow, () => unauthorized()))
          return { subscription_id: id }
        }))
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => users.readAsResponse(me.id, listPushSubscriptions, {})))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* users.write(me.id, removePushSubscription, { id: params.subscription_id }, { actorId: me.id })
          return { success: true as const }
        }))
  })))

/** The push subscription routes, with their rate limiting (built here, as the auth routes do). */
export const PushHttp = perRequestMiddlewaresOnly(PushHandlers).pipe(Layer.provide(RateLimitLive))
