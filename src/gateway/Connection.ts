import { Deferred, Effect, Exit, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Socket } from "effect/socket"
import { zlibStream } from "./Compression.ts"
import { makeMachine, type MachineDeps } from "./Machine.ts"
import { makeOutbound } from "./Outbound.ts"
import { API_VERSION, Close, ENDS_SESSION, frame, Op } from "./Protocol.ts"
import type { Closing, Link } from "./Session.ts"

/** The connection URL's query (`?v=1&encoding=json&compress=zlib-stream`). */
export interface ConnectionQuery {
  readonly v?: string | undefined
  readonly encoding?: string | undefined
  readonly compress?: string | undefined
}

/** Why the query cannot be served, as the close code the client gets right after HELLO. */
const queryProblem = ({ v, encoding, compress }: ConnectionQuery): Closing | undefined => {
  if (v !== undefined && v !== API_VERSION) return { code: Close.INVALID_API_VERSION, reason: "Invalid API version" }
  if (encoding !== undefined && encoding !== "json") return { code: Close.DECODE_ERROR, reason: "Only encoding=json is served" }
  if (compress !== undefined && compress !== "zlib-stream") {
    return { code: Close.DECODE_ERROR, reason: "Only compress=zlib-stream is served" }
  }
  return undefined
}

/** A client's close that ends its session for good (a normal close); any other one may be resumed. */
const clientEndsSession = (code: number) => code === 1000 || code === 1001

type Ended = { readonly by: "server"; readonly closing: Closing } | { readonly by: "client"; readonly code: number }
const byServer = (closing: Closing): Ended => ({ by: "server", closing })

/**
 * One WebSocket connection, from the upgrade to the close: HELLO, then every
 * client frame through the state machine (Machine.ts) until it, a heartbeat
 * timeout, the server (`Link.stop`) or the client ends it. The session
 * outlives the connection unless the close ended it.
 */
export const serveConnection = (
  request: HttpServerRequest.HttpServerRequest,
  query: ConnectionQuery,
  deps: Omit<MachineDeps, "resumeUrl">,
  resumeUrl: string
) =>
  Effect.scoped(Effect.gen(function*() {
    const socket = yield* request.upgrade
    const reader = yield* socket.reader
    const writer = yield* socket.writer
    const outbound = yield* makeOutbound(writer, query.compress === "zlib-stream" ? yield* zlibStream : undefined)
    const stopped = yield* Deferred.make<Closing>()
    const ended = yield* Deferred.make<void>()
    const link: Link = {
      send: outbound.send,
      stop: (closing) => Effect.andThen(Deferred.succeed(stopped, closing), Deferred.await(ended))
    }
    const machine = makeMachine({ ...deps, resumeUrl }, link)
    // A connection that drops without a close handshake interrupts this fiber: the cleanup is a finalizer.
    let end: Ended = { by: "client", code: 1006 }
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        deps.registry.connections.delete(link)
        const session = machine.session()
        if (session !== undefined) {
          const over = end.by === "server" ? ENDS_SESSION.has(end.closing.code) : clientEndsSession(end.code)
          if (over) yield* deps.registry.close(session)
          else session.detach(link, Date.now())
        }
        yield* Deferred.done(ended, Exit.void)
      })
    )
    deps.registry.connections.add(link)
    outbound.send(frame(Op.HELLO, { heartbeat_interval: deps.heartbeatInterval }))

    const loop: Effect.Effect<Ended> = Effect.gen(function*() {
      const problem = queryProblem(query)
      if (problem !== undefined) return byServer(problem)
      while (true) {
        const wait = Math.max(0, machine.deadline() - Date.now())
        const next = yield* Effect.raceFirst(
          reader.pull.pipe(Effect.timeoutOption(wait), Effect.map((frames) => ({ frames }))),
          Effect.map(Deferred.await(stopped), (closing) => ({ closing }))
        )
        if ("closing" in next) return byServer(next.closing)
        if (Option.isNone(next.frames)) return byServer({ code: Close.SESSION_TIMEOUT, reason: "Session timed out" })
        for (const raw of next.frames.value) {
          const closing = yield* machine.receive(raw)
          if (closing !== undefined) return byServer(closing)
        }
      }
    }).pipe(Effect.catch((error: Socket.SocketError) =>
      Effect.succeed<Ended>({ by: "client", code: error.reason._tag === "SocketCloseError" ? error.reason.code : 1006 })
    ))

    end = yield* loop
    if (end.by === "server") {
      if (end.closing.reconnect === true) outbound.send(frame(Op.RECONNECT))
      yield* outbound.close(end.closing.code, end.closing.reason)
    }
  }))
