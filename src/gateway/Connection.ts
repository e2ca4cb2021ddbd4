import { Deferred, Effect, Exit, Scope } from "effect"
import { IncomingMessage } from "node:http"
import type { HttpServerRequest } from "effect/http"
import type { Socket } from "effect/socket"
import type { makeHeartbeats } from "./Heartbeats.ts"
import { makeMachine, type MachineDeps } from "./Machine.ts"
import { makeOutbound } from "./Outbound.ts"
import { API_VERSION, Close, ENDS_SESSION, frame, Op } from "./Protocol.ts"
import type { Closing, Link } from "./Session.ts"
import { type Wire, wireOf } from "./Wire.ts"

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

/** What a connection needs of the process besides the state machine's needs. */
export type ConnectionDeps = Omit<MachineDeps, "resumeUrl"> & {
  readonly outboundLimitBytes: number
  readonly heartbeats: ReturnType<typeof makeHeartbeats>
}

/**
 * One WebSocket connection, from the upgrade to the close: HELLO, then every
 * client frame through the state machine (Machine.ts) until it, a heartbeat
 * timeout (Heartbeats.ts), the server (`Link.stop`) or the client ends it.
 * The session outlives the connection unless the close ended it.
 *
 * The request's fiber ends once the connection is set up: the WebSocket's
 * scope is the connection's own, closed when it ends. An idle connection
 * holds no fiber of the HTTP request (its stack, context and scopes were
 * most of a connection's memory), only a pending read of the client's next
 * frames; frames are written straight to the WebSocket (Outbound.ts).
 */
export const serveConnection = (
  request: HttpServerRequest.HttpServerRequest,
  query: ConnectionQuery,
  deps: ConnectionDeps,
  resumeUrl: string
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const reader = yield* Scope.provide(Effect.flatMap(request.upgrade, (socket) => socket.reader), scope).pipe(
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    const source = request.source
    const wire = source instanceof IncomingMessage ? wireOf(source.socket) : undefined
    if (wire === undefined) {
      yield* Scope.close(scope, Exit.void)
      return yield* Effect.logWarning("gateway: the upgrade left no WebSocket on the socket")
    }
    attach(reader, wire, scope, query, deps, resumeUrl)
  })

/** Runs a connection whose WebSocket is open, until it closes; then closes `scope`. */
const attach = (
  reader: Socket.Reader,
  wire: Wire,
  scope: Scope.Closeable,
  query: ConnectionQuery,
  deps: ConnectionDeps,
  resumeUrl: string
) => {
  const ended = Deferred.makeUnsafe<void>()
  let end: Ended | undefined
  const finish = (closing: Closing) => {
    if (end !== undefined) return
    end = { by: "server", closing }
    if (closing.reconnect === true) outbound.send(frame(Op.RECONNECT))
    // The reading below ends when the client answers the close (or ws gives up on it, after 30 s).
    outbound.drained(() => wire.close(closing.code, closing.reason))
  }
  const outbound = makeOutbound(wire, query.compress === "zlib-stream", {
    limitBytes: deps.outboundLimitBytes,
    overflow: () => finish({ code: Close.UNKNOWN_ERROR, reason: "Client too slow" })
  })
  const link: Link = {
    send: outbound.send,
    stop: (closing) => Effect.andThen(Effect.sync(() => finish(closing)), Deferred.await(ended))
  }
  const machine = makeMachine({ ...deps, resumeUrl }, link)
  const unwatch = deps.heartbeats.watch({
    deadline: machine.deadline,
    expire: () => finish({ code: Close.SESSION_TIMEOUT, reason: "Session timed out" })
  })

  const cleanup = (by: Ended) =>
    Effect.gen(function*() {
      unwatch()
      outbound.destroy()
      deps.registry.connections.delete(link)
      const session = machine.session()
      if (session !== undefined) {
        const endsSession = by.by === "server" ? ENDS_SESSION.has(by.closing.code) : clientEndsSession(by.code)
        if (endsSession) yield* deps.registry.close(session)
        else session.detach(link, Date.now())
      }
    }).pipe(Effect.ensuring(Scope.close(scope, Exit.void)), Effect.ensuring(Deferred.done(ended, Exit.void)))

  // One batch of client frames, read and handled in order; the next read starts once it is done.
  const step: Effect.Effect<boolean> = Effect.flatMap(reader.pull, (frames) =>
    Effect.gen(function*() {
      for (const raw of frames) {
        if (end !== undefined) break
        const closing = yield* machine.receive(raw)
        if (closing !== undefined) finish(closing)
      }
      return end === undefined
    })).pipe(Effect.catch((error: Socket.SocketError) =>
      Effect.sync(() => {
        end ??= { by: "client", code: error.reason._tag === "SocketCloseError" ? error.reason.code : 1006 }
        return false
      })
    ))
  const read = (): void => {
    Effect.runCallback(step, {
      onExit: (exit) => {
        if (exit._tag === "Success" && exit.value) return read()
        Effect.runFork(cleanup(end ?? { by: "client", code: 1006 }))
      }
    })
  }

  deps.registry.connections.add(link)
  outbound.send(frame(Op.HELLO, { heartbeat_interval: deps.heartbeatInterval }))
  const problem = queryProblem(query)
  if (problem !== undefined) finish(problem)
  read()
}
