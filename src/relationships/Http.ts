import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { RelationshipType } from "../model/Relationships.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { listRelationships } from "../../shards/user/operations/Relationships.ts"
import { Relationships } from "./Relationships.ts"

const RelationshipsHandlers = HttpApiBuilder.group(Api, "relationships", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const relationships = yield* Relationships
    const users = yield* UserActors
    const asMe = <A, E, R>(f: (me: string) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentUser, (me) => f(me.id))

    return handlers
      .handle("list", () => asMe((me) => users.readAsResponse(me, listRelationships, {})))
      .handle("requestByTag", ({ payload }) =>
        asMe((me) => relationships.requestByTag(me, payload.username, payload.discriminator)))
      .handle("request", ({ params, payload }) =>
        asMe((me) => relationships.request(me, params.user_id, payload?.staff_force_accept === true)))
      .handle("put", ({ params, payload }) =>
        asMe((me) =>
          payload?.type === RelationshipType.blocked
            ? relationships.block(me, params.user_id)
            : relationships.accept(me, params.user_id)))
      .handle("remove", ({ params }) => asMe((me) => relationships.remove(me, params.user_id)))
      .handle("nickname", ({ params, payload }) =>
        asMe((me) => relationships.setNickname(me, params.user_id, payload.nickname)))
  })))

/** The relationship routes, with their rate limiting (built here, as the auth routes do). */
export const RelationshipsHttp = perRequestMiddlewaresOnly(RelationshipsHandlers).pipe(Layer.provide(RateLimitLive))
