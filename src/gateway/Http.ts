import { Context, Effect, Layer, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SessionCache } from "../auth/SessionCache.ts"
import { Sessions } from "../auth/Sessions.ts"
import { resolveToken } from "../http/AuthenticationLive.ts"
import { BotTokens } from "../oauth2/BotTokens.ts"
import { AppConfig } from "../platform/Config.ts"
import { Api } from "../http/Api.ts"
import { BadRequest, Forbidden } from "../model/Errors.ts"
import { originAllowed } from "../http/Cors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { MessageVisibility } from "../messages/Visibility.ts"
import { SOCKET_PATH } from "./Api.ts"
import { serveConnection } from "./Connection.ts"
import { makeHeartbeats } from "./Heartbeats.ts"
import { makeMemberRequests } from "./MemberRequests.ts"
import { Presences } from "./Presence.ts"
import { makeReady } from "./Ready.ts"
import { GatewayRegistry } from "./Registry.ts"
import { closeRevokedSessions } from "./Revocations.ts"
import { VoiceStates } from "./VoiceStates.ts"

/** One shard serves every guild; identifies are bounded per connection (rate limit), not per day. */
const SESSION_START_LIMIT = { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 }

export const GatewayHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "gateway", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const settings = yield* AppConfig
    // What HTTP accepts: session tokens, and bot tokens with or without `Bot `.
    const tokens = Context.make(Sessions, yield* Sessions).pipe(Context.add(BotTokens, yield* BotTokens))
    const registry = yield* GatewayRegistry
    closeRevokedSessions(registry, yield* SessionCache)
    const ready = yield* makeReady
    const presences = yield* Presences
    const requestMembers = yield* makeMemberRequests
    const voiceStates = yield* VoiceStates
    const allowedOrigin = originAllowed(settings.corsOrigins)
    /**
     * A browser always names the page's origin in the upgrade, and a WebSocket is
     * not subject to CORS: without this check any site could open the gateway
     * with a token it got hold of. Bots and SDKs send no `Origin`.
     */
    const fromAllowedPage = (request: HttpServerRequest.HttpServerRequest) => {
      const origin = request.headers.origin
      return origin === undefined || allowedOrigin(origin)
    }

    /** The configured URL, else ws:// on the host the client reached us by. */
    const socketUrl = (request: HttpServerRequest.HttpServerRequest) =>
      Option.getOrElse(settings.gatewayUrl, () =>
        `ws://${request.headers.host ?? `${settings.host}:${settings.port}`}${SOCKET_PATH}`)

    const deps = {
      registry,
      ready,
      heartbeatInterval: settings.gatewayHeartbeatMillis,
      heartbeats: makeHeartbeats(settings.gatewayHeartbeatMillis),
      outboundLimitBytes: settings.gatewayOutboundLimitBytes,
      presence: presences.update,
      requestMembers,
      voiceState: voiceStates.update,
      authenticate: (token: string) =>
        Effect.map(Effect.provideContext(resolveToken(token), tokens), (user) =>
          user === undefined ? undefined : {
            userId: user.id,
            applicationId: user.applicationId,
            tokenHash: user.applicationId === undefined ? user.session.tokenHash.toString("base64url") : undefined
          })
    }

    return handlers
      .handle("gateway", ({ request }) => Effect.succeed({ url: socketUrl(request) }))
      .handle("gatewayBot", ({ request }) =>
        Effect.succeed({ url: socketUrl(request), shards: 1, session_start_limit: SESSION_START_LIMIT }))
      .handle("connect", ({ query, request }) =>
        !fromAllowedPage(request)
          ? Effect.fail(new Forbidden({ code: "FORBIDDEN", message: "This origin may not open the gateway (CORS_ORIGINS)" }))
          : request.headers.upgrade?.toLowerCase() === "websocket"
          ? serveConnection(request, query, deps, socketUrl(request)).pipe(
            Effect.catchCause((cause) => Effect.logDebug("gateway: connection failed", cause)),
            Effect.as(HttpServerResponse.empty())
          )
          : Effect.fail(new BadRequest({ code: "INVALID_REQUEST", message: "This endpoint takes a WebSocket upgrade" })))
  })))).pipe(Layer.provide(MessageVisibility.layer))
