import { type Compressor, zlibStream } from "./Compression.ts"
import type { Wire } from "./Wire.ts"

/** The sending side of one connection. */
export interface Outbound {
  readonly send: (frame: string) => void
  /** Runs `then` once what was sent before has gone to the wire (at once unless compressing). */
  readonly drained: (then: () => void) => void
  readonly destroy: () => void
}

/** How a connection keeps a slow client from growing the server's memory. */
export interface Bound {
  readonly limitBytes: number
  /** Called once, when a frame would take the backlog past the limit; that frame and later ones are dropped. */
  readonly overflow: () => void
}

/**
 * Frames go to the wire as they are sent, in the caller's turn: dispatch is
 * synchronous, so the fan-out writes a guild's event to each connection in a
 * loop, without a queue or a fiber per connection. Writing never waits for
 * the client, so what it has not read piles up in ws and the socket: past
 * `bound.limitBytes`, the connection is given up on (the session stays, for
 * the client to resume from its buffer).
 */
export const makeOutbound = (wire: Wire, compress: boolean, bound: Bound): Outbound => {
  const compressor: Compressor | undefined = compress ? zlibStream((bytes) => wire.send(bytes)) : undefined
  let overflowed = false
  return {
    send: (frame) => {
      if (overflowed) return
      // Text length undercounts multi-byte characters; it is a bound on memory, not an exact count.
      if (wire.bufferedAmount + frame.length > bound.limitBytes) {
        overflowed = true
        bound.overflow()
        return
      }
      if (compressor === undefined) wire.send(frame)
      else compressor.write(frame)
    },
    drained: (then) => compressor === undefined ? then() : compressor.drained(then),
    destroy: () => compressor?.destroy()
  }
}
