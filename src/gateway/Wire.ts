/**
 * The `ws` connection an upgrade made, used directly: the fan-out sends every
 * frame to thousands of connections at once, and a plain call per frame costs
 * a fraction of a queue and a writing fiber per connection (and their memory).
 */
export interface Wire {
  /** A string goes as a text frame, bytes as a binary one (compressed streams). */
  readonly send: (data: string | Uint8Array) => void
  /** Starts the close handshake; the socket ends when the client answers, or after ws's own timeout. */
  readonly close: (code: number, reason: string) => void
  /** Bytes accepted for the client and not yet taken by it (ws's queue and the socket's). */
  readonly bufferedAmount: number
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number
  /** ws's events: `message` (data, isBinary), `close` (code, reason) and `error`. */
  readonly on: (event: "message" | "close" | "error", listener: (first: unknown, second: unknown) => void) => unknown
  readonly listeners: (event: "message" | "close" | "error") => ReadonlyArray<WireListener>
  readonly removeListener: (event: "message" | "close" | "error", listener: WireListener) => unknown
  /** Whether reading from the client is paused (a reader that buffered too much pauses it). */
  readonly isPaused: boolean
  readonly resume: () => void
}

/** A listener as ws lists it: called with whatever its event carries. */
export type WireListener = (...args: ReadonlyArray<never>) => unknown

const isWire = (value: unknown): value is Wire =>
  typeof value === "object" && value !== null &&
  "send" in value && typeof value.send === "function" &&
  "close" in value && typeof value.close === "function" &&
  "bufferedAmount" in value && typeof value.bufferedAmount === "number" &&
  "readyState" in value && typeof value.readyState === "number" &&
  "on" in value && typeof value.on === "function" &&
  "listeners" in value && typeof value.listeners === "function" &&
  "removeListener" in value && typeof value.removeListener === "function" &&
  "isPaused" in value && typeof value.isPaused === "boolean" &&
  "resume" in value && typeof value.resume === "function"

/**
 * The WebSocket that `ws` attached to an upgraded socket: ws marks the socket
 * with it, under a symbol of its own, for as long as the connection lasts.
 */
export const wireOf = (socket: object): Wire | undefined => {
  for (const key of Object.getOwnPropertySymbols(socket)) {
    const value: unknown = Reflect.get(socket, key)
    if (isWire(value)) return value
  }
  return undefined
}
