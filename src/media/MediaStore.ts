import { Context, Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { AppConfig } from "../Config.ts"

/** A stored object's name: the SHA-256 of its bytes, in hex. */
export const MEDIA_HASH = /^[0-9a-f]{64}$/

export const hashOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/**
 * Uploaded files (emoji and sticker images), content-addressed: the same
 * bytes are stored once whoever uploads them, and an object never changes, so
 * it can be cached forever. Nothing is deleted when a row stops pointing at an
 * object: another row may share it.
 */
export class MediaStore extends Context.Service<MediaStore, {
  /** Stores the bytes (once) and answers their hash. */
  readonly put: (bytes: Uint8Array) => Effect.Effect<string>
  /** The bytes of `hash`, or undefined when nothing is stored under it. */
  readonly get: (hash: string) => Effect.Effect<Uint8Array | undefined>
}>()("guildhall/MediaStore") {
  /** On local disk under `root`, fanned out by the first two hex digits of the hash. */
  static readonly local = (root: string) => {
    const pathOf = (hash: string) => Path.join(root, hash.slice(0, 2), hash)
    const put = (bytes: Uint8Array) =>
      Effect.promise(async () => {
        const hash = hashOf(bytes)
        const target = pathOf(hash)
        const exists = await Fs.stat(target).then(() => true, () => false)
        if (!exists) {
          await Fs.mkdir(Path.dirname(target), { recursive: true })
          // Written aside and renamed in: a reader never sees half a file.
          const partial = `${target}.${randomBytes(6).toString("hex")}.partial`
          await Fs.writeFile(partial, bytes)
          await Fs.rename(partial, target)
        }
        return hash
      })
    const get = (hash: string) =>
      MEDIA_HASH.test(hash)
        ? Effect.promise(() =>
          Fs.readFile(pathOf(hash)).then(
            (buffer): Uint8Array | undefined => new Uint8Array(buffer),
            (error: unknown) => {
              if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined
              throw error
            }
          )
        )
        : Effect.succeed(undefined)
    return MediaStore.of({ put, get })
  }

  /** `DATA_DIR/media`. */
  static readonly layer = Layer.effect(
    MediaStore,
    Effect.map(AppConfig, ({ dataDir }) => MediaStore.local(Path.resolve(dataDir, "media")))
  )
}
