import { Context, Layer, Logger } from "effect"
import type { Settings } from "./Config.ts"
import { loggingLayer } from "./Logs.ts"
import { type ProcessRole, tracingLayer } from "./Tracing.ts"

export type { ProcessRole } from "./Tracing.ts"

/** How a process reports what it does: its log lines (LOG_FORMAT) and, when a collector is set, its spans. */
export const telemetryLayer = (settings: Settings, role: ProcessRole) =>
  Layer.mergeAll(loggingLayer(settings.logFormat), tracingLayer(settings, role))

/**
 * The loggers of `context`, for a fiber that starts from a context of its own
 * (the HTTP server's requests: src/http/Server.ts) and must still log as the
 * process does. The tracer stays out: a request that is traced is given it
 * (src/http/RequestTracing.ts).
 */
export const loggersOf = (context: Context.Context<never>): Context.Context<never> =>
  Context.make(Logger.CurrentLoggers, Context.get(context, Logger.CurrentLoggers))
