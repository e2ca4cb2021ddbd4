import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"

export interface Client {
  readonly ip: string | null
  readonly userAgent: string | null
}

/**
 * Who is on the other end of this request, as far as a session records it. The
 * request middleware (src/http/Server.ts) has put the client's canonical address
 * in `remoteAddress`, behind trusted proxies the forwarded one.
 */
export const requestClient: Effect.Effect<Client, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => ({
    ip: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : null,
    userAgent: request.headers["user-agent"] ?? null
  })
)
