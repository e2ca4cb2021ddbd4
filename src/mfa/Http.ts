import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { makeEnrollment } from "./Enrollment.ts"
import { makeLoginSteps } from "./LoginSteps.ts"

const MfaHandlers = HttpApiBuilder.group(Api, "mfa", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const login = yield* makeLoginSteps
    const enrollment = yield* makeEnrollment
    const asMe = <A, E, R>(f: (me: CurrentUser["Service"]) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentUser, f)

    return handlers
      .handle("loginTotp", ({ payload }) => login.totp(payload.ticket, payload.code))
      .handle("loginSmsSend", ({ payload }) => login.sendSms(payload.ticket))
      .handle("loginSms", ({ payload }) => login.sms(payload.ticket, payload.code))
      .handle("loginWebAuthnOptions", ({ payload }) => login.webauthnOptions(payload.ticket))
      .handle("loginWebAuthn", ({ payload }) => login.webauthn(payload.ticket, payload.challenge, payload.response))
      .handle("passwordlessOptions", () => login.passwordlessOptions)
      .handle("passwordlessAuthenticate", ({ payload }) => login.passwordless(payload.challenge, payload.response))
      .handle("totpEnable", ({ payload }) => asMe((me) => enrollment.enableTotp(me, payload)))
      .handle("totpDisable", ({ payload }) => asMe((me) => enrollment.disableTotp(me, payload)))
      .handle("backupCodes", ({ payload }) => asMe((me) => enrollment.backupCodes(me, payload)))
      .handle("smsEnable", ({ payload }) => asMe((me) => enrollment.enableSms(me, payload ?? {})))
      .handle("smsDisable", ({ payload }) => asMe((me) => enrollment.disableSms(me, payload ?? {})))
      .handle("webauthnCredentials", () => asMe(enrollment.credentials))
      .handle("webauthnRegistrationOptions", ({ payload }) => asMe((me) => enrollment.registrationOptions(me, payload ?? {})))
      .handle("webauthnRegister", ({ payload }) =>
        asMe((me) => enrollment.register(me, payload.challenge, payload.response, payload.name)))
      .handle("webauthnRename", ({ params, payload }) => asMe((me) => enrollment.rename(me, params.credential_id, payload)))
      .handle("webauthnDelete", ({ params, payload }) => asMe((me) => enrollment.remove(me, params.credential_id, payload ?? {})))
      .handle("sudoMfaMethods", () => asMe(enrollment.sudoMethods))
      .handle("sudoSmsSend", () => asMe((me) => enrollment.sendSudoSms(me)))
      .handle("sudoWebAuthnOptions", () => asMe((me) => enrollment.sudoWebAuthnOptions(me)))
  })))

/** The MFA routes, with their rate limiting (built here, as the auth routes do, so no shared file changes). */
export const MfaHttp = perRequestMiddlewaresOnly(MfaHandlers).pipe(Layer.provide(RateLimitLive))
