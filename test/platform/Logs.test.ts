import { assert, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { eventually } from "../support/Cluster.ts"
import { otlpReceiver } from "../support/OtlpReceiver.ts"
import { startEmbeddedServer } from "../support/Processes.ts"

const LogLine = Schema.Struct({
  timestamp: Schema.String,
  level: Schema.String,
  message: Schema.Unknown,
  requestId: Schema.optional(Schema.String),
  traceId: Schema.optional(Schema.String),
  spanId: Schema.optional(Schema.String)
})
const decodeLine = Schema.decodeUnknownOption(Schema.fromJsonString(LogLine))

/** The process's output lines that are JSON log lines. */
const logLines = (output: string) =>
  output.split("\n").flatMap((line) => {
    const decoded = decodeLine(line)
    return decoded._tag === "Some" ? [decoded.value] : []
  })

/** An API process on a scratch database logging every request, with `settings`: its URL and output. */
const serverLogging = (settings: Readonly<Record<string, string>>) =>
  Effect.map(startEmbeddedServer({ LOG_REQUESTS: "true", ...settings }), ({ base, started }) => ({ base, server: started }))

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    await response.arrayBuffer()
    return { status: response.status, requestId: response.headers.get("x-request-id") ?? "" }
  })

it.live("LOG_FORMAT=json: every line is a JSON object; a request's carries its request id and its trace and span ids", () =>
  Effect.gen(function*() {
    const receiver = yield* otlpReceiver
    const { base, server } = yield* serverLogging({
      LOG_FORMAT: "json",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "200"
    })
    const reply = yield* get(`${base}/users/@me`)
    assert.strictEqual(reply.status, 401)
    assert.notStrictEqual(reply.requestId, "")

    const line = yield* eventually("the request's log line", Effect.sync(() =>
      logLines(server.output()).find((l) => l.requestId === reply.requestId)), (l) => l !== undefined)
    assert.isDefined(line)
    if (line === undefined) return
    assert.strictEqual(line.level, "INFO")
    assert.strictEqual(line.message, "GET /users/@me 401")
    assert.match(line.traceId ?? "", /^[0-9a-f]{32}$/)
    assert.match(line.spanId ?? "", /^[0-9a-f]{16}$/)
    // The ids are those of the request's span, as the collector got it.
    const span = yield* eventually("the request's span", Effect.sync(() =>
      receiver.spans().find((s) => s.traceId === line.traceId && s.attributes["url.path"] === "/users/@me")), (s) => s !== undefined)
    assert.strictEqual(span?.spanId, line.spanId)
    // Start-up lines are JSON too, without a request id.
    assert.isTrue(logLines(server.output()).some((l) => l.requestId === undefined))
  }), { timeout: 120_000 })

it.live("LOG_FORMAT=pretty: text lines, a request's with its request id; no trace ids without a collector", () =>
  Effect.gen(function*() {
    const { base, server } = yield* serverLogging({ LOG_FORMAT: "pretty" })
    const reply = yield* get(`${base}/users/@me`)
    const output = yield* eventually("the request's log line", Effect.sync(() => server.output()), (o) => o.includes(reply.requestId))
    const lines = output.split("\n")
    const at = lines.findIndex((l) => l.includes("GET /users/@me 401"))
    assert.isAbove(at, -1, output)
    // Effect's pretty logger shows annotations on the lines after the message.
    assert.include(lines.slice(at, at + 3).join("\n"), reply.requestId, lines.slice(at, at + 3).join("\n"))
    assert.deepStrictEqual(logLines(output), [])
  }), { timeout: 120_000 })
