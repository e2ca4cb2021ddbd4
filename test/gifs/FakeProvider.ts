import { Effect } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"

/** One request a fake provider received. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly body: unknown
}

/**
 * How a fake provider answers: as its API does, with a status of its own
 * (the provider failing), not at all (a timeout), with text that is not JSON,
 * or with JSON of another shape.
 */
export type Behaviour = "ok" | { readonly status: number } | "silent" | "garbled" | "misshapen"

/** What the route table of a fake answers: a status and JSON. */
export interface Answer {
  readonly status: number
  readonly json: unknown
}

/**
 * A GIF provider's HTTP API on a loopback port (a real server): `route` answers
 * each request; everything received is kept for the test to look at.
 */
export const fakeProviderServer = (route: (request: Received) => Answer) =>
  Effect.gen(function*() {
    const received: Array<Received> = []
    let behaviour: Behaviour = "ok"
    const server = yield* Effect.acquireRelease(
      Effect.promise(() =>
        new Promise<Server>((resolve) => {
          const s = createServer((request, response) => {
            readBody(request).then((text) => {
              const url = new URL(request.url ?? "/", "http://fake")
              const body: unknown = text === "" ? undefined : JSON.parse(text)
              const got: Received = { method: request.method ?? "GET", path: url.pathname, query: url.searchParams, body }
              received.push(got)
              if (behaviour === "silent") return // the socket stays open until the client gives up
              if (behaviour === "garbled") return void response.writeHead(200, { "content-type": "application/json" }).end("<html>oops")
              if (behaviour === "misshapen") {
                return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ items: "none" }))
              }
              if (typeof behaviour === "object") {
                return void response.writeHead(behaviour.status, { "content-type": "application/json" })
                  .end(JSON.stringify({ error: { code: behaviour.status, message: "Internal error" } }))
              }
              const answer = route(got)
              response.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.json))
            }, () => response.writeHead(400).end())
          })
          s.listen(0, "127.0.0.1", () => resolve(s))
        })
      ),
      (s) =>
        Effect.promise(() =>
          new Promise<void>((resolve) => {
            s.closeAllConnections()
            s.close(() => resolve())
          })
        )
    )
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    return {
      origin: `http://127.0.0.1:${port}`,
      behave: (next: Behaviour) => Effect.sync(() => { behaviour = next }),
      /** Requests received so far whose path ends with `suffix`. */
      requests: (suffix: string) => Effect.sync(() => received.filter((r) => r.path.endsWith(suffix)))
    }
  })

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })
