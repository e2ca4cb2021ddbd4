import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer, Option, Tracer } from "effect"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import type { Fiber } from "effect/Fiber"
import type { Settings } from "./Config.ts"

/** What a process is in the deployment: its default service name and a resource attribute of its spans. */
export type ProcessRole = "api" | "shard"

/**
 * `tracer`, recording only `ratio` of the traces that start here. Effect gives
 * a child the decision of its parent (also one from another process, which the
 * cluster's messages carry), so only roots are drawn. An unrecorded span is
 * Effect's native one: it still carries the trace's ids to its children, but
 * costs what a span costs with no collector (the exporter's spans keep their
 * attributes and events for the export that will not come).
 */
const sampled = (tracer: Tracer.Tracer, ratio: number): Tracer.Tracer =>
  Tracer.make({
    span: (options) => {
      // A request's server span was drawn already, with the caller's traceparent (src/http/RequestTracing.ts).
      const recorded = options.sampled &&
        (ratio >= 1 || Option.isSome(options.parent) || options.kind === "server" || Math.random() < ratio)
      return recorded
        ? tracer.span(options)
        : Tracer.nativeTracer.span(options.sampled ? { ...options, sampled: false } : options)
    },
    context: tracer.context
  })

/**
 * Spans exported over OTLP/HTTP with the JSON encoding to
 * `OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces`, every `OTEL_BSP_SCHEDULE_DELAY` ms;
 * no endpoint, no layer: Effect keeps its native tracer, whose spans go
 * nowhere, and the HTTP server makes no request spans at all.
 *
 * The exports go through `node:http`, which the server has loaded already:
 * `fetch` would load and compile undici on the first export, seconds after
 * boot, while requests are being served.
 */
export const tracingLayer = (settings: Settings, role: ProcessRole) =>
  Option.match(settings.otlpEndpoint, {
    onNone: () => Layer.empty,
    onSome: (endpoint) =>
      Layer.effect(
        Tracer.Tracer,
        Effect.map(OtlpTracer.make({
          url: `${endpoint}/v1/traces`,
          resource: {
            serviceName: Option.getOrElse(settings.otelServiceName, () => `guildhall-${role}`),
            attributes: { "guildhall.process.role": role, "process.pid": process.pid }
          },
          exportInterval: settings.otlpExportIntervalMillis,
          maxBatchSize: settings.otlpMaxBatchSize,
          shutdownTimeout: "3 seconds"
        }), (tracer) => sampled(tracer, settings.traceSampleRatio))
      ).pipe(Layer.provide([OtlpSerialization.layerJson, NodeHttpClient.layerNodeHttp, OtlpExporter.layerFlusher]))
  })

/** Whether this fiber exports its spans somewhere (a tracer other than Effect's native one is installed). */
export const isTracing = (fiber: Fiber<unknown, unknown>): boolean => fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer

/** The span current in `fiber` when it is recorded and exported, else undefined. */
export const exportedSpan = (fiber: Fiber<unknown, unknown>): Tracer.AnySpan | undefined => {
  if (!isTracing(fiber)) return undefined
  const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  return span?.sampled === true ? span : undefined
}

/** A span's place in its trace, as it travels between processes (a Redis message, a log line). */
export interface TraceContext {
  readonly traceId: string
  readonly spanId: string
}

/** `effect` in a span of `name` under `parent`, a span of another process; as it is without one. */
export const continueTrace = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  name: string,
  parent: TraceContext | undefined,
  attributes: Record<string, unknown>
): Effect.Effect<A, E, R> =>
  parent === undefined ? effect : Effect.withSpan(effect, name, {
    parent: Tracer.externalSpan({ traceId: parent.traceId, spanId: parent.spanId, sampled: true }),
    attributes,
    kind: "consumer",
    captureStackTrace: false
  })
