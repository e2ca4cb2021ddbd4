import { Effect, Option, Tracer } from "effect"
import { type HttpServerRequest, type HttpServerResponse, HttpTraceContext } from "effect/http"

/** Load balancers' and Kubernetes' probes: several a second, and nothing to see in a trace. */
const probes = new Set(["/_health", "/_ready", "/v1/_health", "/v1/_ready"])

/** A gateway connection's request lasts as long as the connection: its events are traced from their commits instead. */
const untraced = (request: HttpServerRequest.HttpServerRequest) => probes.has(request.url) || request.headers["upgrade"] !== undefined

/** `answered` in the request's server span, when the request is traced. */
export type TraceRequest = <R>(
  request: HttpServerRequest.HttpServerRequest,
  answered: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

/**
 * Request spans, decided per request: a request whose `traceparent` says the
 * caller records it is traced, one that says not is not, any other is drawn
 * with `ratio`. Only a traced request runs with the process's tracer; the
 * others keep Effect's native one, for which the HTTP server takes its fast
 * path (a tracer in every request's context costs a fifth of a guild read
 * even when nothing is recorded). Without a collector there is nothing to do.
 */
export const requestTracing = (tracer: Tracer.Tracer, ratio: number): TraceRequest | undefined =>
  tracer === Tracer.nativeTracer ? undefined : (request, answered) => {
    if (untraced(request)) return answered
    const parent = HttpTraceContext.fromHeaders(request.headers)
    const recorded = Option.isSome(parent) ? parent.value.sampled : ratio >= 1 || Math.random() < ratio
    if (!recorded) return answered
    const statusNoted = Effect.tap(answered, (response) => Effect.annotateCurrentSpan("http.response.status_code", response.status))
    const spanned = Effect.withSpan(statusNoted, `http.server ${request.method}`, {
      kind: "server",
      parent: Option.getOrUndefined(parent),
      attributes: { "http.request.method": request.method, "url.path": request.url.split("?")[0] },
      captureStackTrace: false
    })
    return Effect.provideService(spanned, Tracer.Tracer, tracer)
  }
