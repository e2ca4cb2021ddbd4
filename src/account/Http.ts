import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Sudo } from "../auth/Sudo.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { holdAccount } from "../users/AccountRefresh.ts"
import { UserUpdates } from "../users/Updates.ts"
import { EmailChange } from "./EmailChange.ts"
import { PasswordChange } from "./PasswordChange.ts"

const AccountHandlers = HttpApiBuilder.group(Api, "account", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const emailChange = yield* EmailChange
    const passwordChange = yield* PasswordChange
    const sudo = yield* Sudo
    const updates = yield* UserUpdates
    const userActors = yield* UserActors

    return handlers
      // Changing the address the account is recovered through is sensitive: it needs sudo mode.
      .handle("emailChangeStart", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload ?? {})
          return yield* emailChange.start(me.id)
        }))
      .handle("emailChangeVerifyOriginal", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => emailChange.verifyOriginal(me.id, payload.ticket, payload.code)))
      .handle("emailChangeResendOriginal", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => emailChange.resendOriginal(me.id, payload.ticket)))
      .handle("emailChangeRequestNew", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) =>
          emailChange.requestNew(me.id, payload.ticket, payload.new_email, payload.original_proof)))
      .handle("emailChangeResendNew", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => emailChange.resendNew(me.id, payload.ticket)))
      .handle("emailChangeVerifyNew", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) =>
          holdAccount(userActors, me.id).pipe(
            Effect.andThen(emailChange.verifyNew(me.id, payload.ticket, payload.code, payload.original_proof)),
            Effect.tap(() => updates.announce(me.id))
          )))
      .handle("emailChangeBouncedRequestNew", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* sudo.require(me, payload)
          return yield* emailChange.bouncedRequestNew(me.id, payload.new_email)
        }))
      .handle("emailChangeBouncedResendNew", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => emailChange.bouncedResendNew(me.id, payload.ticket)))
      .handle("emailChangeBouncedVerifyNew", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* holdAccount(userActors, me.id)
          yield* emailChange.bouncedVerifyNew(me.id, payload.ticket, payload.code)
          // The user's actor reads the new address; its private user is the answer.
          return yield* updates.announce(me.id)
        }))
      .handle("passwordChangeStart", () => Effect.flatMap(CurrentUser, (me) => passwordChange.start(me.id)))
      .handle("passwordChangeResend", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => passwordChange.resend(me.id, payload.ticket)))
      .handle("passwordChangeVerify", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => passwordChange.verify(me.id, payload.ticket, payload.code)))
      .handle("passwordChangeComplete", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) =>
          passwordChange.complete(me.id, payload.ticket, payload.verification_proof, payload.new_password)))
  })))

/** The account routes, with their rate limiting (built here, as the auth routes do, so no shared file changes). */
export const AccountHttp = perRequestMiddlewaresOnly(AccountHandlers).pipe(Layer.provide(RateLimitLive))
