import { Array as Arr, Formatter, Logger } from "effect"
import type { Fiber } from "effect/Fiber"
import type { LogFormat } from "./Config.ts"
import { exportedSpan } from "./Tracing.ts"

/**
 * The request id (src/http/Server.ts) of the fiber serving a request. Kept
 * beside the fiber rather than as a log annotation: annotating would copy the
 * request's context on every request, logged or not.
 */
const requestIds = new WeakMap<Fiber<unknown, unknown>, string>()

/** Marks `fiber` as serving the request `requestId`: its log lines carry the id. */
export const tagRequest = (fiber: Fiber<unknown, unknown>, requestId: string): void => {
  requestIds.set(fiber, requestId)
}

/**
 * One JSON object a line: time, level, message, the request id when the line
 * was logged serving a request, the trace and span ids when a span is current
 * and exported (a log search finds the trace), annotations and cause.
 */
const jsonLogger = Logger.withConsoleLog(Logger.make((options) => {
  const { timestamp, level, message, cause, annotations, fiberId } = Logger.formatStructured.log(options)
  const span = exportedSpan(options.fiber)
  return Formatter.formatJson({
    timestamp,
    level,
    message,
    requestId: requestIds.get(options.fiber),
    traceId: span?.traceId,
    spanId: span?.spanId,
    ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    cause,
    fiberId
  })
}))

const pretty = Logger.consolePretty()

/** Effect's pretty console lines, the request id after the message's first line. */
const prettyLogger = Logger.make((options) => {
  const requestId = requestIds.get(options.fiber)
  if (requestId === undefined) return pretty.log(options)
  const [first, ...rest] = Arr.ensure(options.message)
  const tagged = typeof first === "string" ? [`${first} requestId=${requestId}`, ...rest] : [`requestId=${requestId}`, first, ...rest]
  return pretty.log({ ...options, message: tagged })
})

/** The process's loggers (LOG_FORMAT); log messages also become events of the current span. */
export const loggingLayer = (format: LogFormat) =>
  Logger.layer([format === "json" ? jsonLogger : prettyLogger, Logger.tracerLogger])
