import { Effect } from "effect"
import { createHash } from "node:crypto"
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import { PassThrough, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { ZipFile } from "yazl"

/** Writes one text file of the zip; each write waits while the zip is behind (backpressure), so memory stays flat. */
export type WriteText = (text: string) => Effect.Effect<void>

export interface ZipWriter {
  /** Adds the file `name`, written by `fill` piece by piece; the next file starts once `fill` is done. */
  readonly file: <E, R>(name: string, fill: (write: WriteText) => Effect.Effect<void, E, R>) => Effect.Effect<void, E, R>
  /** Ends the zip and answers its SHA-256 (hex) and size once every byte is on disk. */
  readonly finish: Effect.Effect<{ readonly hash: string; readonly size: number }>
  /** Closes the file whatever became of the zip (nothing once it is finished). */
  readonly abandon: Effect.Effect<void>
}

/**
 * A zip streamed (yazl) to the file at `path`, hashed on the way for the
 * content-addressed media store. Files are streams fed while the data is
 * read, so an export never holds more than a page and the buffers between.
 */
export const zipTo = (path: string) =>
  Effect.sync((): ZipWriter => {
    const zip = new ZipFile()
    const hash = createHash("sha256")
    let size = 0
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk)
        size += chunk.length
        done(null, chunk)
      }
    })
    const target = createWriteStream(path)
    const written = pipeline(zip.outputStream, count, target)
    // A failed write (a full disk) also ends the waits of `file`, and `finish` reports it.
    const stopped = written.then(() => undefined, () => undefined)

    const file = <E, R>(name: string, fill: (write: WriteText) => Effect.Effect<void, E, R>) =>
      Effect.suspend(() => {
        const body = new PassThrough()
        zip.addReadStream(body, name)
        const write: WriteText = (text) =>
          Effect.promise(() => (body.write(text) ? Promise.resolve() : Promise.race([once(body, "drain").then(() => undefined), stopped])))
        return fill(write).pipe(Effect.ensuring(Effect.promise(() => new Promise<void>((done) => body.end(done)))))
      })

    const finish = Effect.promise(async () => {
      zip.end()
      await written
      return { hash: hash.digest("hex"), size }
    })
    const abandon = Effect.sync(() => {
      target.destroy()
    })
    return { file, finish, abandon }
  })

/** `zipTo` for the scope: its file is closed when the scope ends, finished or not. */
export const zipAt = (path: string) => Effect.acquireRelease(zipTo(path), (zip) => zip.abandon)
