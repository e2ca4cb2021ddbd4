import { constants, createDeflate } from "node:zlib"

/** Turns frames into what goes on the wire, in order, and hands each on when it is ready. */
export interface Compressor {
  readonly write: (frame: string) => void
  /** Runs `then` once every frame written so far has been handed on. */
  readonly drained: (then: () => void) => void
  readonly destroy: () => void
}

/**
 * `compress=zlib-stream`: one zlib stream for the whole connection, each
 * frame flushed with Z_SYNC_FLUSH into a binary message, so every message
 * ends with 00 00 ff ff and the client inflates them in turn with one
 * inflater. Frames go through one at a time: a flush's bytes are exactly its
 * frame's. Only connections that ask for it pay for the zlib context.
 */
export const zlibStream = (deliver: (bytes: Uint8Array) => void): Compressor => {
  const deflate = createDeflate()
  const pending: Array<Buffer> = []
  deflate.on("data", (chunk: Buffer) => pending.push(chunk))
  deflate.on("error", () => undefined)
  const waiting: Array<string> = []
  let busy = false
  let whenDrained: Array<() => void> = []
  const next = (): void => {
    const text = waiting.shift()
    if (text === undefined) {
      busy = false
      const run = whenDrained
      whenDrained = []
      for (const f of run) f()
      return
    }
    busy = true
    deflate.write(text)
    deflate.flush(constants.Z_SYNC_FLUSH, () => {
      const bytes = Buffer.concat(pending)
      pending.length = 0
      deliver(bytes)
      next()
    })
  }
  return {
    write: (frame) => {
      waiting.push(frame)
      if (!busy) next()
    },
    drained: (then) => {
      if (busy) whenDrained.push(then)
      else then()
    },
    destroy: () => {
      waiting.length = 0
      deflate.destroy()
    }
  }
}
