import { Formatter, Logger } from "effect"
import type { LogFormat } from "./Config.ts"
import { exportedSpan } from "./Tracing.ts"

/**
 * One JSON object a line: time, level, message, the request id (the
 * `requestId` annotation of the request log and of request errors:
 * src/http/Server.ts), the trace and span ids when a span is current and
 * exported (a log search finds the trace), the other annotations and the cause.
 */
const jsonLogger = Logger.withConsoleLog(Logger.make((options) => {
  const { timestamp, level, message, cause, annotations: { requestId, ...annotations }, fiberId } = Logger.formatStructured.log(options)
  const span = exportedSpan(options.fiber)
  return Formatter.formatJson({
    timestamp,
    level,
    message,
    requestId,
    traceId: span?.traceId,
    spanId: span?.spanId,
    ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    cause,
    fiberId
  })
}))

/** The process's loggers (LOG_FORMAT); log messages also become events of the current span. */
export const loggingLayer = (format: LogFormat) =>
  Logger.layer([format === "json" ? jsonLogger : Logger.consolePretty(), Logger.tracerLogger])
