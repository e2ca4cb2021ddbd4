import { NodeSocket } from "@effect/platform-node"
import { Effect, Layer, Scope } from "effect"
import { Runners } from "effect/cluster"
import { RpcClient, RpcSerialization } from "effect/rpc"
import { Socket } from "effect/socket"
import * as Net from "node:net"

type WriteCallback = (err?: Error | null) => void

/**
 * Makes the writes of one turn of the event loop leave `socket` together: the
 * first write of a turn corks it, and it is uncorked once the turn's I/O
 * callbacks have run (setImmediate). An API process sends an actor call per
 * request; under load, the calls of one turn go out in one system call
 * instead of one each (the writes were a tenth of an API process's time in
 * cluster mode). Node gives a connected socket a `write` of its own, so the
 * connected socket's is wrapped, not the class's.
 */
const corkEachTurn = (socket: Net.Socket): void => {
  const write = socket.write
  let corked = false
  const uncork = () => {
    corked = false
    socket.uncork()
  }
  socket.write = (chunk: Uint8Array | string, encodingOrCallback?: BufferEncoding | WriteCallback, cb?: WriteCallback): boolean => {
    if (!corked) {
      corked = true
      socket.cork()
      setImmediate(uncork)
    }
    return typeof encodingOrCallback === "function"
      ? write.call(socket, chunk, undefined, encodingOrCallback)
      : write.call(socket, chunk, encodingOrCallback, cb)
  }
}

/** A connection to a runner, as `NodeSocket.makeNet` opens one, corked each turn. */
const connect = (host: string, port: number) =>
  NodeSocket.fromDuplex(
    Effect.flatMap(Effect.scope, (scope) => {
      const conn = new Net.Socket()
      let open = false
      return Effect.andThen(
        Scope.addFinalizer(scope, Effect.sync(() => conn.closed ? undefined : open ? conn.destroySoon() : conn.destroy())),
        Effect.callback<Net.Socket, Socket.SocketError>((resume) => {
          conn.once("connect", () => {
            open = true
            corkEachTurn(conn)
            resume(Effect.succeed(conn))
          })
          conn.on("error", (cause) =>
            resume(Effect.fail(new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind: "Unknown", cause }) }))))
          conn.connect({ host, port })
        })
      )
    }),
    { openTimeout: 1000 }
  )

/**
 * The cluster's client protocol (what `NodeClusterSocket.layerClientProtocol`
 * provides) over sockets corked each turn: how API processes and runners reach runners.
 */
export const layerCorkedClientProtocol = Layer.effect(Runners.RpcClientProtocol)(Effect.gen(function*() {
  const serialization = yield* RpcSerialization.RpcSerialization
  return {
    codecFor: serialization.codecFor,
    make: Effect.fnUntraced(function*(address) {
      const socket = yield* connect(address.host, address.port)
      return yield* RpcClient.makeProtocolSocket().pipe(
        Effect.provideService(Socket.Socket, socket),
        Effect.provideService(RpcSerialization.RpcSerialization, serialization)
      )
    }, Effect.orDie)
  }
}))
