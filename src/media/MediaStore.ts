import { Context, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { AppConfig, type MediaS3Settings } from "../platform/Config.ts"
import { serviceUnavailable } from "../model/Errors.ts"
import { hashOf, MEDIA_HASH } from "./ContentAddress.ts"
import { ObjectStoreError, s3Store } from "./S3Store.ts"

/** What clients see when the object store fails; the cause goes to the log. */
export const mediaUnavailable = (error: ObjectStoreError) =>
  Effect.andThen(
    Effect.logWarning("media store failed", error.message),
    Effect.fail(serviceUnavailable("The media store could not be reached; try again later"))
  )

/**
 * Uploaded files (emoji and sticker images, message attachments), content-addressed: the same
 * bytes are stored once whoever uploads them, and an object never changes, so
 * it can be cached forever. Nothing is deleted when a row stops pointing at an
 * object: another row may share it; only an operator's purge removes one, once
 * no row points at it. A write the disk refuses (full, read-only, I/O error) is
 * an ObjectStoreError like a remote store's refusal: the client is told to try
 * again later, and the half-written file is removed so freed space is not eaten.
 */
export class MediaStore extends Context.Service<MediaStore, {
  /** Stores the bytes (once) and answers their hash. */
  readonly put: (bytes: Uint8Array) => Effect.Effect<string, ObjectStoreError>
  /**
   * Stores the file at `path`, whose SHA-256 is `hash` (computed while it was
   * written), without reading it into memory. The local store moves it in:
   * the caller's clean-up must not mind it gone.
   */
  readonly putFile: (path: string, hash: string, size: number) => Effect.Effect<void, ObjectStoreError>
  /** The bytes of `hash`, or undefined when nothing is stored under it. */
  readonly get: (hash: string) => Effect.Effect<Uint8Array | undefined, ObjectStoreError>
  /** Removes the object of `hash`; nothing when there is none. */
  readonly remove: (hash: string) => Effect.Effect<void, ObjectStoreError>
}>()("guildhall/MediaStore") {
  /** On local disk under `root`, fanned out by the first two hex digits of the hash. */
  static readonly local = (root: string) => {
    const pathOf = (hash: string) => Path.join(root, hash.slice(0, 2), hash)
    /**
     * Writes `target` through a partial file beside it (a reader never sees half a file);
     * a failed write leaves nothing behind.
     */
    const writeIn = (hash: string, write: (partial: string) => Promise<void>) =>
      Effect.tryPromise({
        try: async () => {
          const target = pathOf(hash)
          if (await Fs.stat(target).then(() => true, () => false)) return
          const partial = `${target}.${randomBytes(6).toString("hex")}.partial`
          try {
            await Fs.mkdir(Path.dirname(target), { recursive: true })
            await write(partial)
            await Fs.rename(partial, target)
          } catch (error) {
            await Fs.rm(partial, { force: true }).catch(() => undefined)
            throw error
          }
        },
        catch: (cause) => new ObjectStoreError({ message: `writing ${hash} failed: ${String(cause)}` })
      })
    const put = Effect.fn("MediaStore.put")((bytes: Uint8Array) => {
      const hash = hashOf(bytes)
      return Effect.as(writeIn(hash, (partial) => Fs.writeFile(partial, bytes)), hash)
    })
    const putFile = Effect.fn("MediaStore.putFile")((path: string, hash: string) =>
      // A rename when the file is on the same disk; a copy when it is not (EXDEV).
      writeIn(hash, (partial) => Fs.rename(path, partial).catch(() => Fs.copyFile(path, partial))))
    const get = Effect.fn("MediaStore.get")((hash: string) =>
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
        : Effect.succeed(undefined))
    const remove = Effect.fn("MediaStore.remove")((hash: string) =>
      MEDIA_HASH.test(hash) ? Effect.promise(() => Fs.rm(pathOf(hash), { force: true })) : Effect.void)
    return MediaStore.of({ put, putFile, get, remove })
  }

  /** On an S3-compatible store (S3Store.ts). */
  static readonly s3 = (settings: MediaS3Settings) => MediaStore.of(s3Store(settings))

  /** The S3 bucket of `MEDIA_S3_*` when configured, otherwise `DATA_DIR/media`. */
  static readonly layer = Layer.effect(
    MediaStore,
    Effect.map(AppConfig, ({ dataDir, mediaS3 }) =>
      Option.isSome(mediaS3) ? MediaStore.s3(mediaS3.value) : MediaStore.local(Path.resolve(dataDir, "media")))
  )
}
