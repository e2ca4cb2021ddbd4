import { Effect, Fiber, Queue } from "effect"
import { Socket } from "effect/socket"

/** Turns a frame into what goes on the wire (a compressed stream's next bytes, or the text itself). */
export type Encoder = (frame: string) => Effect.Effect<string | Uint8Array>

/** The sending side of one connection: frames queue here and a fiber writes them in order. */
export interface Outbound {
  readonly send: (frame: string) => void
  /** Writes what is queued, then closes the connection with `code`. */
  readonly close: (code: number, reason: string) => Effect.Effect<void>
}

/**
 * Dispatch is synchronous (the fan-out calls `send` for every session of a
 * guild in turn), so frames are queued and a fiber of the connection writes them.
 */
export const makeOutbound = (writer: Socket.Writer, encode: Encoder | undefined) =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<string | Socket.CloseEvent>()
    const writeText = (frames: ReadonlyArray<string>): Effect.Effect<void, Socket.SocketError> => {
      const [first, ...rest] = frames
      if (first === undefined) return Effect.void
      return encode === undefined
        ? writer.writeAll([first, ...rest])
        : Effect.forEach(frames, (f) => Effect.flatMap(encode(f), writer.write), { discard: true })
    }
    // Writes batches until a close; the connection is over once this ends.
    const pump: Effect.Effect<void, Socket.SocketError> = Effect.flatMap(Queue.takeAll(queue), (batch) => {
      const closeAt = batch.findIndex(Socket.isCloseEvent)
      const text = batch.slice(0, closeAt < 0 ? batch.length : closeAt).filter((f) => typeof f === "string")
      const close = closeAt < 0 ? undefined : batch[closeAt]
      return Effect.andThen(writeText(text), close === undefined ? pump : writer.write(close))
    })
    const writing = yield* Effect.forkScoped(Effect.ignore(pump))
    return {
      send: (frame: string) => void Queue.offerUnsafe(queue, frame),
      close: (code, reason) =>
        Effect.andThen(Queue.offer(queue, new Socket.CloseEvent(code, reason)), Fiber.await(writing))
    } satisfies Outbound
  })
