import { Context, Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"

/**
 * The child-safety authority's intake on a local port (a real HTTP server):
 * it answers `{report_id}` to each POST, or 503 while `failNext` has failures
 * left, and keeps the bodies it accepted.
 */
export class FakeAuthority extends Context.Service<FakeAuthority, {
  /** What AUTHORITY_REPORT_URL is set to. */
  readonly url: string
  /** The next `n` submissions are refused with a 503. */
  readonly failNext: (n: number) => Effect.Effect<void>
  /** The report ids of the accepted submissions, in order. */
  readonly accepted: Effect.Effect<ReadonlyArray<string>>
  /** Every POST it got, accepted or refused. */
  readonly attempts: Effect.Effect<number>
}>()("test/FakeAuthority") {
  static readonly layer = Layer.effect(
    FakeAuthority,
    Effect.gen(function*() {
      const accepted: Array<string> = []
      let failures = 0
      let attempts = 0
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<Server>((resolve) => {
            const s = createServer((request, response) => {
              const chunks: Array<Buffer> = []
              request.on("data", (chunk: Buffer) => chunks.push(chunk))
              request.on("end", () => {
                attempts++
                if (failures > 0) {
                  failures--
                  response.writeHead(503).end("busy")
                  return
                }
                const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
                const id = typeof body === "object" && body !== null && "report_id" in body ? String(body.report_id) : "?"
                accepted.push(id)
                response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ report_id: `AUTH-${id}` }))
              })
            })
            s.listen(0, "127.0.0.1", () => resolve(s))
          })
        ),
        (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return {
        url: `http://127.0.0.1:${port}/reports`,
        failNext: (n) => Effect.sync(() => { failures = n }),
        accepted: Effect.sync(() => [...accepted]),
        attempts: Effect.sync(() => attempts)
      }
    })
  )
}
