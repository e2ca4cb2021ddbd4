import { Context, Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"

/**
 * A social-network instance on a local port (a real HTTP server) answering the
 * AT-protocol profile method, `GET /xrpc/app.bsky.actor.getProfile?actor=<handle>`,
 * from profiles a test sets: `{did, handle, description}`, or 400 for a handle it
 * does not know, as instances do.
 */
export class FakeSocialInstance extends Context.Service<FakeSocialInstance, {
  /** What SOCIAL_INSTANCE_URL is set to. */
  readonly url: string
  /** From now on, `handle`'s profile has this description. */
  readonly setDescription: (handle: string, description: string) => void
  /** The handles it was asked about, in order. */
  readonly asked: ReadonlyArray<string>
}>()("test/FakeSocialInstance") {
  static readonly layer = Layer.effect(
    FakeSocialInstance,
    Effect.gen(function*() {
      const descriptions = new Map<string, string>()
      const asked: Array<string> = []
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<Server>((resolve) => {
            const s = createServer((request, response) => {
              const url = new URL(request.url ?? "/", "http://instance")
              const handle = url.searchParams.get("actor") ?? ""
              if (request.method !== "GET" || url.pathname !== "/xrpc/app.bsky.actor.getProfile") {
                response.writeHead(404).end()
                return
              }
              asked.push(handle)
              const description = descriptions.get(handle)
              if (description === undefined) {
                response.writeHead(400, { "content-type": "application/json" })
                  .end(JSON.stringify({ error: "InvalidRequest", message: "Profile not found" }))
                return
              }
              response.writeHead(200, { "content-type": "application/json" })
                .end(JSON.stringify({ did: `did:plc:${handle.replace(/\W/g, "")}`, handle, displayName: handle, description }))
            })
            s.listen(0, "127.0.0.1", () => resolve(s))
          })
        ),
        (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return {
        url: `http://127.0.0.1:${port}`,
        setDescription: (handle, description) => {
          descriptions.set(handle, description)
        },
        asked
      }
    })
  )
}
