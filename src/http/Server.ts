import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Context, Effect, Layer, Option } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup, HttpApiScalar } from "effect/http-api"
import { randomBytes } from "node:crypto"
import type { unhandled } from "effect/Types"
import { createServer } from "node:http"
import { AppConfig, type Settings } from "../platform/Config.ts"
import { loggersOf } from "../platform/Telemetry.ts"
import { requestTracing, type TraceRequest } from "./RequestTracing.ts"
import { clientAddress, networkSet } from "../platform/IpAddress.ts"
import { IpBanList } from "../admin/bans/IpBanList.ts"
import { Api } from "./Api.ts"
import { ipBanned, toErrorResponse, unsupportedMediaType } from "./ErrorResponses.ts"
import { PlannedRoutesLayer } from "./NotImplemented.ts"
import { corsFor, everyAnswerHeadersFor } from "./Cors.ts"
import { refuseUnstorableInput } from "./StorableInput.ts"
import { recordAnswer, startMeasuring } from "./RequestMetrics.ts"
import { MAX_FRAME_BYTES } from "../gateway/Protocol.ts"
import { consoleRoutes } from "../admin/console/Routes.ts"

/** Bodies beyond this are refused with 413 before they are parsed. */
export const MAX_BODY = ByteSize.megabytes(1)

const processTag = randomBytes(3).toString("hex")
let requestCounter = 0

/**
 * `effect` with `value` under `key` in the request fiber's context. Unlike
 * `Effect.provideService`, the context is not restored when `effect` ends:
 * the server restores the whole context when the request ends, as Effect's
 * router relies on too. So what the router adds (the route that matched)
 * stays visible to the steps that make the answer, and the request pays no
 * step to undo it.
 */
const withinRequest = <I, S, A, E, R>(effect: Effect.Effect<A, E, R>, key: Context.Key<I, S>, value: S): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    fiber.setContext(Context.add(fiber.context, key, value))
    return effect
  })

const isVersioned = (url: string) => url === "/v1" || url.startsWith("/v1/") || url.startsWith("/v1?")

/**
 * The operators' routes stay open to a banned address, so that an operator
 * who banned a range they stand in can lift it; they need an operator's
 * credentials anyway.
 */
const isAdmin = (url: string) => url === "/admin" || url.startsWith("/admin/") || url.startsWith("/admin?")

/**
 * Runs around every request, routed or not: serves `/v1/...` as `/...`,
 * puts the client's address in `remoteAddress` (the socket's, or behind
 * TRUSTED_PROXIES the forwarded one: `clientAddress`; everything after reads
 * it there), refuses a banned address (403 IP_BANNED), answers CORS
 * preflights and marks answers for browser pages of allowed origins,
 * caps the body size, tags the response with a request id and the headers of
 * every answer (security, Vary), turns everything that escaped into the error object,
 * and counts the request by route and status (METRICS; off, nothing of it runs).
 */
/** What every request is served with, taken when the server is built: no request looks a service up for it. */
interface Serving {
  readonly settings: Settings
  readonly ipBans: IpBanList["Service"]
  /** When spans are exported: how a request is traced (RequestTracing.ts). */
  readonly traceRequest: TraceRequest | undefined
}

const requestMiddleware = ({ ipBans, settings, traceRequest }: Serving) => {
  const { logRequests } = settings
  const measuring = settings.metrics.enabled
  const trusted = networkSet(settings.trustedProxies)
  const cors = corsFor(settings)
  const everyAnswerHeaders = everyAnswerHeadersFor(settings)
  return HttpRouter.middleware<{ handles: unknown }>()((httpEffect): Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    unhandled,
    HttpServerRequest.HttpServerRequest
  > =>
    // Combinators rather than a generator: this runs on every request.
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const requestId = `${processTag}-${(++requestCounter).toString(36)}`
      const measured = measuring ? startMeasuring(request.method) : undefined
      const peer = Option.getOrUndefined(request.remoteAddress)
      const client = clientAddress(peer, trusted.size > 0 ? request.headers["x-forwarded-for"] : undefined, trusted)
      const url = isVersioned(request.url) ? request.url.slice(3) || "/" : request.url
      const seen = url === request.url && client === peer
        ? request
        : request.modify({ url, remoteAddress: Option.fromNullishOr(client), peerAddress: request.remoteAddress })
      const refused = client !== undefined && !isAdmin(url) && ipBans.banned(client)
      const routed = cors(
        request,
        refused
          ? Effect.succeed(ipBanned())
          : seen === request
          ? httpEffect
          : withinRequest(httpEffect, HttpServerRequest.HttpServerRequest, seen)
      )
      // GET and HEAD routes read no body; not adding the cap spares a copy of the context.
      const capped = request.method === "GET" || request.method === "HEAD"
        ? routed
        : withinRequest(routed, HttpIncomingMessage.MaxBodySize, MAX_BODY)
      const answered = capped.pipe(
        Effect.catchCause((cause) => toErrorResponse(cause, requestId)),
        Effect.map((response) => {
          const answer = HttpServerResponse.setHeaders(
            response.status === 415 ? unsupportedMediaType(request) : response,
            { ...everyAnswerHeaders, "x-request-id": requestId }
          )
          if (measured !== undefined) recordAnswer(measured, answer.status)
          return answer
        })
      )
      const logged = logRequests
        // The id as an annotation of this line alone: annotating the request's fiber would copy its context on every request.
        ? Effect.tap(answered, (response) =>
          Effect.annotateLogs(Effect.logInfo(`${request.method} ${request.url} ${response.status}`), "requestId", requestId))
        : answered
      return traceRequest === undefined ? logged : traceRequest(request, logged)
    }), { global: true })
}

const apiRouter = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" })

/** The API's route handlers, one service per group: what the server needs of the application. */
type Handlers = Extract<Layer.Services<typeof apiRouter>, HttpApiGroup.Service<string, string>>

/**
 * Routes of the API, `/openapi.json`, `/docs` and the operators' console page, behind the request middleware;
 * the API's routes also behind the refusal of text that cannot be stored.
 * The handlers are given to the API's router alone: requests never look them up.
 */
const routes = (serving: Serving, handlers: Context.Context<Handlers>) =>
  Layer.mergeAll(
    apiRouter.pipe(Layer.provide([Layer.succeedContext(handlers), refuseUnstorableInput(Api)])),
    HttpApiScalar.layer(Api, { path: "/docs" }),
    PlannedRoutesLayer,
    consoleRoutes(),
    requestMiddleware(serving)
  )

/**
 * The HTTP server on HOST:PORT; the engine's per-request logger is off (it halves throughput).
 * Path parameters may be up to 2048 characters (the router's default is 100): a WebAuthn
 * credential id, named in the path, is up to 1023 bytes (1364 in base64url).
 */
const server = (serving: Serving, handlers: Context.Context<Handlers>) =>
  HttpRouter.serve(routes(serving, handlers), {
    disableLogger: true,
    routerConfig: { ignoreTrailingSlash: false, maxParamLength: 2048 }
  }).pipe(Layer.provide(NodeHttpServer.layer(createServer, {
    port: serving.settings.port,
    host: serving.settings.host,
    websocket: { maxPayload: MAX_FRAME_BYTES }
  })))

/**
 * Serves the handlers. Every request's fiber starts from the context the server
 * was built in, and Effect copies that context whenever a request adds to it.
 * So the server is built from nothing of the application but its loggers
 * (Telemetry.ts): the handlers took their services when they were built
 * (LeanGroups.ts), and only the router sees them; the request middleware holds
 * the list of banned addresses the same way, and, when spans are exported, the
 * tracer it gives the requests it traces (RequestTracing.ts).
 */
export const serve = <E, R>(handlers: Layer.Layer<Handlers, E, R>) =>
  Layer.unwrap(Effect.gen(function*() {
    const settings = yield* AppConfig
    const ipBans = yield* IpBanList
    const serving: Serving = { settings, ipBans, traceRequest: requestTracing(yield* Effect.tracer, settings.traceSampleRatio) }
    return Layer.fromBuild((memoMap, scope) =>
      Effect.flatMap(Layer.buildWithMemoMap(handlers, memoMap, scope), (built) =>
        Layer.buildWithMemoMap(server(serving, built), memoMap, scope).pipe(
          Effect.updateContext((everything: Context.Context<R>) => loggersOf(everything))
        )))
  }))
