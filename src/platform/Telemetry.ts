import { Context, Layer, Logger, Tracer } from "effect"
import type { Settings } from "./Config.ts"
import { loggingLayer } from "./Logs.ts"
import { type ProcessRole, tracingLayer } from "./Tracing.ts"

export type { ProcessRole } from "./Tracing.ts"

/** How a process reports what it does: its log lines (LOG_FORMAT) and, when a collector is set, its spans. */
export const telemetryLayer = (settings: Settings, role: ProcessRole) =>
  Layer.mergeAll(loggingLayer(settings.logFormat), tracingLayer(settings, role))

/**
 * The loggers and, when spans are exported, the tracer of `context`, for a
 * fiber that starts from a context of its own (the HTTP server's requests:
 * src/http/Server.ts) and must still log and trace as the process does.
 * Without a collector the tracer stays out: requests take Effect's native one,
 * for which the server makes no spans.
 */
export const telemetryOf = (context: Context.Context<never>): Context.Context<never> => {
  const loggers = Context.make(Logger.CurrentLoggers, Context.get(context, Logger.CurrentLoggers))
  const tracer = Context.get(context, Tracer.Tracer)
  return tracer === Tracer.nativeTracer ? loggers : Context.add(loggers, Tracer.Tracer, tracer)
}
