import { Effect, type Scope } from "effect"
import { constants, createDeflate } from "node:zlib"
import type { Encoder } from "./Outbound.ts"

/**
 * `compress=zlib-stream`: one zlib stream for the whole connection, each
 * frame flushed with Z_SYNC_FLUSH into a binary message, so every message
 * ends with 00 00 ff ff and the client inflates them in turn with one
 * inflater. The compressor lives as long as the connection's scope.
 */
export const zlibStream: Effect.Effect<Encoder, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(Effect.sync(() => createDeflate()), (deflate) => Effect.sync(() => deflate.destroy())),
  (deflate) => {
    const pending: Array<Buffer> = []
    deflate.on("data", (chunk: Buffer) => pending.push(chunk))
    return (text: string) =>
      Effect.callback<Uint8Array>((resume) => {
        deflate.write(text)
        deflate.flush(constants.Z_SYNC_FLUSH, () => {
          const bytes = Buffer.concat(pending)
          pending.length = 0
          resume(Effect.succeed(bytes))
        })
      })
  }
)
