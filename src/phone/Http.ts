import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Sudo } from "../auth/Sudo.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { PhoneNumbers } from "./PhoneNumbers.ts"

const PhoneHandlers = HttpApiBuilder.group(Api, "phone", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const phones = yield* PhoneNumbers
    const sudo = yield* Sudo
    return handlers
      .handle("sendVerification", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => phones.send(me.id, payload.phone)).pipe(Effect.as({ channel: "sms" as const })))
      .handle("verify", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => phones.verify(me.id, payload.phone, payload.code)).pipe(
          Effect.map((phone_token) => ({ verified: true as const, phone_token }))
        ))
      // The number becomes a way to reach and recover the account: both changes need sudo mode.
      .handle("add", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload)
          yield* phones.add(me.id, payload.phone_token)
        }))
      .handle("remove", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload ?? {})
          yield* phones.remove(me.id)
        }))
  })))

/** The phone routes, with their rate limiting (built here, as the auth routes do, so no shared file changes). */
export const PhoneHttp = perRequestMiddlewaresOnly(PhoneHandlers).pipe(Layer.provide(RateLimitLive))
