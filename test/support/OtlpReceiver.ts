import { Effect, Schema } from "effect"
import { localHttpServer } from "./LocalHttp.ts"

const AnyValue = Schema.Struct({
  stringValue: Schema.optional(Schema.NullOr(Schema.String)),
  intValue: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Number]))),
  boolValue: Schema.optional(Schema.NullOr(Schema.Boolean))
})
const Attributes = Schema.Array(Schema.Struct({ key: Schema.String, value: AnyValue }))
const TraceData = Schema.Struct({
  resourceSpans: Schema.Array(Schema.Struct({
    resource: Schema.Struct({ attributes: Attributes }),
    scopeSpans: Schema.Array(Schema.Struct({
      spans: Schema.Array(Schema.Struct({
        traceId: Schema.String,
        spanId: Schema.String,
        parentSpanId: Schema.optional(Schema.NullOr(Schema.String)),
        name: Schema.String,
        attributes: Attributes
      }))
    }))
  }))
})
const decodeTraceData = Schema.decodeUnknownSync(Schema.fromJsonString(TraceData))

/** One span as the receiver got it, with its process's resource attributes and its own, as strings. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly resource: Readonly<Record<string, string>>
}

const flatten = (attributes: typeof Attributes.Type): Record<string, string> =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, String(value.stringValue ?? value.intValue ?? value.boolValue ?? "")]))

/**
 * An OTLP/HTTP trace receiver on loopback, JSON encoding (`POST /v1/traces`),
 * as a collector would be: the OTEL_EXPORTER_OTLP_ENDPOINT of test processes.
 * Closed when the scope ends.
 */
export const otlpReceiver = Effect.gen(function*() {
  const spans: Array<ReceivedSpan> = []
  const posts: Array<string> = []
  const endpoint = yield* localHttpServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString()))
    request.on("end", () => {
      posts.push(`${request.method} ${request.url} ${request.headers["content-type"] ?? ""}`)
      if (request.method !== "POST" || request.url !== "/v1/traces") return void response.writeHead(404).end()
      try {
        for (const { resource, scopeSpans } of decodeTraceData(body).resourceSpans) {
          for (const { spans: received } of scopeSpans) {
            for (const span of received) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? undefined,
                name: span.name,
                attributes: flatten(span.attributes),
                resource: flatten(resource.attributes)
              })
            }
          }
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      } catch {
        response.writeHead(400).end()
      }
    })
  })
  return {
    endpoint,
    /** Every span received so far. */
    spans: () => [...spans],
    /** Every request received so far (method, path, content type), whatever it was. */
    posts: () => [...posts]
  }
})
