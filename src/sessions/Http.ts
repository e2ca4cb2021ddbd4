import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { requestClient } from "../auth/Client.ts"
import { LoginCompletion } from "../auth/LoginCompletion.ts"
import { type Session, Sessions } from "../auth/Sessions.ts"
import { Sudo } from "../auth/Sudo.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser, parseAuthorization } from "../http/Authentication.ts"
import { Forbidden, unauthorized } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { maskIp, parseUserAgent } from "./ClientInfo.ts"
import { Handoffs } from "./Handoffs.ts"

const tokenMismatch = () =>
  new Forbidden({ code: "SESSION_TOKEN_MISMATCH", message: "The token does not belong to this user" })

const SessionsHandlers = HttpApiBuilder.group(Api, "sessions", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const sessions = yield* Sessions
    const handoffs = yield* Handoffs
    const sudo = yield* Sudo
    const loginCompletion = yield* LoginCompletion

    const sessionOf = (token: string) =>
      Effect.flatMap(sessions.resolve(token), (session) => session === undefined ? Effect.fail(unauthorized()) : Effect.succeed(session))

    /**
     * Who completes a handoff: the session named by the body's `token`, or by
     * the Authorization header; when both are given they must be one account,
     * and it must be `user_id`.
     */
    const completer = (bodyToken: string | undefined, userId: string) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers.authorization
        const parsed = header === undefined ? undefined : parseAuthorization(header)
        if (header !== undefined && parsed?.scheme !== "session") return yield* unauthorized()
        const found: Array<Session> = []
        if (bodyToken !== undefined) found.push(yield* sessionOf(bodyToken))
        if (parsed !== undefined) found.push(yield* sessionOf(parsed.secret))
        if (found.length === 0) return yield* unauthorized()
        if (found.some((session) => session.userId !== userId)) return yield* tokenMismatch()
      })

    return handlers
      .handle("listSessions", () =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const stored = yield* sessions.list(me.id)
          return stored.map((session) => {
            const client = parseUserAgent(session.userAgent)
            return {
              id_hash: session.tokenHash.toString("base64url"),
              // No geolocation database is shipped, so the location is never known.
              client_info: { browser: client.browser, os: client.os, platform: client.platform, location: null },
              masked_ip: maskIp(session.clientIp),
              approx_last_used_at: session.lastUsedAt.toISOString(),
              current: session.tokenHash.equals(me.session.tokenHash)
            }
          })
        }))
      .handle("logoutSessions", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const hashes = payload.session_id_hashes.map((hash) => Buffer.from(hash, "base64url"))
          // Ending this very session is a logout; ending any other one is sensitive.
          if (hashes.some((hash) => !hash.equals(me.session.tokenHash))) yield* sudo.require(me, payload)
          yield* sessions.revokeMany(me.id, hashes)
        }))
      .handle("handoffInitiate", () =>
        Effect.gen(function*() {
          const { code, expiresAt } = yield* handoffs.initiate(yield* requestClient)
          return { code, expires_at: expiresAt.toISOString() }
        }))
      .handle("handoffComplete", ({ payload }) =>
        Effect.gen(function*() {
          yield* completer(payload.token, payload.user_id)
          yield* handoffs.complete(payload.code, payload.user_id)
        }))
      .handle("handoffStatus", ({ params }) =>
        Effect.gen(function*() {
          const { status, claimedBy } = yield* handoffs.poll(params.code)
          if (claimedBy === undefined) return { status, token: null, user_id: null, user: null }
          // The polling device is the new one: its session records its own address and agent.
          return { status, ...(yield* loginCompletion.finish(claimedBy)) }
        }))
      .handle("handoffInfo", ({ params }) =>
        Effect.gen(function*() {
          const { status, userAgent } = yield* handoffs.info(params.code)
          const client = parseUserAgent(userAgent)
          return { status, client_info: { platform: client.platform, os: client.os, location: null } }
        }))
      .handle("handoffCancel", ({ params }) => handoffs.cancel(params.code))
  })))

/** The session and handoff routes, with their rate limiting (built here, as the auth routes do). */
export const SessionsHttp = perRequestMiddlewaresOnly(SessionsHandlers).pipe(Layer.provide(RateLimitLive))
