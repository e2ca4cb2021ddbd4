import { Effect } from "effect"
import { createServer, type RequestListener, type Server } from "node:http"

/**
 * A node:http server answering `handler` on a free loopback port for as long
 * as the scope lasts (a fake outside service over a real socket): its base URL.
 */
export const localHttpServer = (handler: RequestListener) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() =>
        new Promise<Server>((resolve) => {
          const http = createServer(handler)
          http.listen(0, "127.0.0.1", () => resolve(http))
        })
      ),
      (http) => Effect.promise(() => new Promise<void>((resolve) => http.close(() => resolve())))
    ),
    (http) => {
      const address = http.address()
      return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
    }
  )
