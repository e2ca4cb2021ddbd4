import { Deferred, Effect, Exit, Scope } from "effect"
import { IncomingMessage } from "node:http"
import type * as Socket_ from "node:net"
import type { HttpServerRequest } from "effect/http"
import type { Socket } from "effect/socket"
import type { makeHeartbeats } from "./Heartbeats.ts"
import { makeConnectionState, type ConnectionStateDeps } from "./ConnectionState.ts"
import { makeOutbound } from "./Outbound.ts"
import { API_VERSION, Close, ENDS_SESSION, frame, Op, RATE_LIMIT } from "./Protocol.ts"
import type { Closing, Link } from "./Session.ts"
import { type Wire, type WireListener, wireOf } from "./Wire.ts"

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

/** What a connection needs of the process besides what its protocol state needs. */
export type ConnectionDeps = Omit<ConnectionStateDeps, "resumeUrl"> & {
  readonly outboundLimitBytes: number
  readonly heartbeats: ReturnType<typeof makeHeartbeats>
}

/**
 * One WebSocket connection, from the upgrade to the close: HELLO, then every
 * client frame through the connection state (ConnectionState.ts) until it, a heartbeat
 * timeout (Heartbeats.ts), the server (`Link.stop`) or the client ends it.
 * The session outlives the connection unless the close ended it.
 *
 * The request's fiber ends once the connection is set up, and the connection
 * runs on the WebSocket's own events: an idle connection holds no fiber.
 * Nor does it hold what the upgrade was made with (`letGo`): the request,
 * its fiber and context, and the upgrade's scope were most of a connection's
 * memory. Frames are written straight to the WebSocket (Outbound.ts).
 */
export const serveConnection = (
  request: HttpServerRequest.HttpServerRequest,
  query: ConnectionQuery,
  deps: ConnectionDeps,
  resumeUrl: string
) =>
  Effect.gen(function*() {
    const upgrade = yield* Scope.make()
    // Acquiring the reader is what completes the handshake; the frames are then read off ws itself.
    const reader = yield* Scope.provide(Effect.flatMap(request.upgrade, (socket) => socket.reader), upgrade).pipe(
      Effect.onError(() => Scope.close(upgrade, Exit.void))
    )
    const source = request.source
    const socket = source instanceof IncomingMessage ? source.socket : undefined
    const wire = socket === undefined ? undefined : wireOf(socket)
    if (socket === undefined || wire === undefined) {
      yield* Scope.close(upgrade, Exit.void)
      return yield* Effect.logWarning("gateway: the upgrade left no WebSocket on the socket")
    }
    const sentAlready = early(reader)
    letGo(socket, wire)
    attach(wire, query, deps, resumeUrl, sentAlready)
  })

/**
 * Drops every listener through which the socket and the WebSocket held the
 * upgrade: the reader's (its buffer, its scope, and through the scope's
 * finalizer the platform's whole upgrade handler: request, fiber, context)
 * and the platform's own on the socket (which would interrupt the request's
 * fiber, long ended). Only ws's listeners stay, and the connection's, added
 * next. The upgrade's scope is never closed: its finalizers would close the
 * WebSocket and detach the reader, which the connection does itself when it
 * ends; unreferenced, it is collected with all it held.
 */
const letGo = (socket: Socket_.Socket, wire: Wire) => {
  for (const event of ["message", "close", "error"] as const) {
    for (const listener of wire.listeners(event)) {
      if (addedAsEventTarget(listener)) wire.removeListener(event, listener)
    }
  }
  // An 'error' with no listener would throw; ws closes the connection after one anyway.
  wire.on("error", ignore)
  // The reader pauses a client that sent more than it buffers; nothing reads through it any more.
  if (wire.isPaused) wire.resume()
  // The platform adds its listeners once the request's fiber has been started, which runs
  // this far at once: they are on the socket by the next turn of the event loop.
  setImmediate(() => {
    for (const [event, kept] of WS_SOCKET_LISTENERS) {
      for (const listener of socket.listeners(event)) {
        if (listener.name !== kept && isSocketListener(listener)) socket.removeListener(event, listener)
      }
    }
  })
}

/**
 * The reader listens through ws's EventTarget interface, whose wrappers ws marks
 * with symbols of its own; ws's own listeners (its server's count of clients) are plain.
 */
const addedAsEventTarget = (listener: WireListener) => Object.getOwnPropertySymbols(listener).length > 0

const isSocketListener = (listener: unknown): listener is (...args: Array<unknown>) => void => typeof listener === "function"

/** The listeners ws puts on the socket it took over (ws/lib/websocket.js `setSocket`), by event. */
const WS_SOCKET_LISTENERS = [["close", "socketOnClose"], ["error", "socketOnError"]] as const

const ignore = () => undefined

/** Frames the reader took before the connection listened to ws itself (a client need not wait for HELLO). */
const early = (reader: Socket.Reader): ReadonlyArray<string | Uint8Array> => {
  const pull = Effect.runFork(reader.pull)
  const exit = pull.pollUnsafe()
  if (exit === undefined) pull.interruptUnsafe()
  return exit?._tag === "Success" ? exit.value : []
}

const decoder = new TextDecoder()
/** WebSocket.CLOSED. */
const CLOSED = 3
const asFrame = (data: unknown, isBinary: unknown): string | Uint8Array | undefined => {
  if (!(data instanceof Uint8Array)) return undefined
  return isBinary === true ? data : decoder.decode(data)
}

/** Runs a connection whose WebSocket is open, from the frames the client sent already, until it closes. */
const attach = (
  wire: Wire,
  query: ConnectionQuery,
  deps: ConnectionDeps,
  resumeUrl: string,
  sentAlready: ReadonlyArray<string | Uint8Array>
) => {
  const ended = Deferred.makeUnsafe<void>()
  let end: Ended | undefined
  const finish = (closing: Closing) => {
    if (end !== undefined) return
    end = { by: "server", closing }
    if (closing.reconnect === true) outbound.send(frame(Op.RECONNECT))
    // The connection ends when the client answers the close (or ws gives up on it, after 30 s).
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
  const state = makeConnectionState({ ...deps, resumeUrl }, link)
  const unwatch = deps.heartbeats.watch({
    deadline: state.deadline,
    expire: () => finish({ code: Close.SESSION_TIMEOUT, reason: "Session timed out" })
  })

  // Client frames are handled one at a time, in order; those that come meanwhile wait here.
  const waiting: Array<string | Uint8Array> = []
  let handling = false
  const handleNext = (): void => {
    const raw = waiting.shift()
    if (raw === undefined || end !== undefined) {
      handling = false
      waiting.length = 0
      return
    }
    handling = true
    Effect.runCallback(state.receive(raw), {
      onExit: (exit) => {
        if (exit._tag === "Failure") {
          Effect.runFork(Effect.logWarning("gateway: a client frame failed", exit.cause))
          finish({ code: Close.UNKNOWN_ERROR, reason: "Unknown error" })
        } else if (exit.value !== undefined) {
          finish(exit.value)
        }
        handleNext()
      }
    })
  }
  const received = (raw: string | Uint8Array) => {
    if (end !== undefined) return
    // More than the rate limit waiting behind a slow IDENTIFY is over the rate limit anyway.
    if (waiting.length >= RATE_LIMIT.payloads) return finish({ code: Close.RATE_LIMITED, reason: "Rate limited" })
    waiting.push(raw)
    if (!handling) handleNext()
  }
  wire.on("message", (data, isBinary) => {
    const raw = asFrame(data, isBinary)
    if (raw !== undefined) received(raw)
  })
  const closed = (code: unknown) => {
    const by = end ?? { by: "client", code: typeof code === "number" ? code : 1006 }
    end = by
    unwatch()
    outbound.destroy()
    deps.registry.connections.delete(link)
    const session = state.session()
    const forget = session === undefined
      ? Effect.void
      : (by.by === "server" ? ENDS_SESSION.has(by.closing.code) : clientEndsSession(by.code))
      ? deps.registry.close(session)
      : Effect.sync(() => session.detach(link, Date.now()))
    Effect.runFork(forget.pipe(Effect.ensuring(Deferred.done(ended, Exit.void))))
  }
  wire.on("close", closed)

  deps.registry.connections.add(link)
  outbound.send(frame(Op.HELLO, { heartbeat_interval: deps.heartbeatInterval }))
  const problem = queryProblem(query)
  if (problem !== undefined) finish(problem)
  for (const raw of sentAlready) received(raw)
  // Closed before it was listened to: ws's close event has come and gone.
  if (wire.readyState === CLOSED) closed(1006)
}
