import { Effect, Stream } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Multipart } from "effect/http"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { createHash } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { type BadRequest, type Forbidden, invalidField, missingPermissions, PayloadTooLarge } from "../../model/Errors.ts"
import { CEILINGS } from "../../model/Limits.ts"

/**
 * Ceilings of a message's files (part A leaves them unstated: these are the
 * production platform's free tier): ten files, 25 MiB each, 50 MiB together.
 * The instance's limits (src/platform/Limits.ts) may be lower, never higher.
 */
export const MAX_FILES = CEILINGS.attachmentsPerMessage
export const MAX_FILE_BYTES = CEILINGS.attachmentFileBytes
export const MAX_TOTAL_BYTES = 50 * 1024 * 1024
/** `payload_json` and any other text field. */
export const MAX_FIELD_BYTES = 1024 * 1024

/** What is kept in memory of each file: enough of its start to read an image header. */
const HEAD_BYTES = 64 * 1024

/** A refused upload's unread rest is read and dropped up to this much; past it the connection is closed. */
const MAX_DISCARDED_BYTES = 64 * 1024 * 1024

/** One uploaded file, written to a temporary file while its SHA-256 and size were counted. */
export interface StagedFile {
  /** `n` of its `files[n]` field. */
  readonly index: number
  readonly fieldName: string
  /** The name the client gave the part (not yet normalised). */
  readonly filename: string
  readonly path: string
  readonly size: number
  readonly hash: string
  /** Its first bytes (at most HEAD_BYTES). */
  readonly head: Uint8Array
}

export interface StagedUpload {
  readonly payloadJson: string | undefined
  readonly files: ReadonlyArray<StagedFile>
}

export type UploadError = BadRequest | Forbidden | PayloadTooLarge

const FILE_FIELD = /^files\[(\d{1,3})\]$/

const fileTooLarge = (maxBytes = MAX_FILE_BYTES) =>
  new PayloadTooLarge({ code: "FILE_SIZE_TOO_LARGE", message: `Files are at most ${maxBytes} bytes` })
const totalTooLarge = () =>
  invalidField("files", "MESSAGE_TOTAL_ATTACHMENT_SIZE_TOO_LARGE", `A message's files are at most ${MAX_TOTAL_BYTES / 1024 / 1024} MiB together`)
const unparsable = () => invalidField("root", "FAILED_TO_PARSE_MULTIPART_FORM_DATA", "The multipart body could not be parsed")

/** The parser's own limits (set a little above ours, so ours speak first) and its failures, as the wire's errors. */
export const parserLimits = {
  maxParts: MAX_FILES + 20,
  maxFieldSize: MAX_FIELD_BYTES,
  maxFileSize: MAX_FILE_BYTES + 1,
  maxTotalSize: MAX_TOTAL_BYTES + MAX_FIELD_BYTES + 64 * 1024
}

const fromMultipartError = (error: Multipart.MultipartError): UploadError => {
  switch (error.reason._tag) {
    case "FileTooLarge":
      return fileTooLarge()
    case "BodyTooLarge":
      return totalTooLarge()
    case "FieldTooLarge":
      return new PayloadTooLarge({ code: "PAYLOAD_TOO_LARGE", message: "A form field is too large" })
    default:
      return unparsable()
  }
}

/**
 * Reads and drops what the client still sends of a refused upload, so the
 * answer reaches it and the connection stays usable; nothing is kept. A
 * client that keeps sending past MAX_DISCARDED_BYTES is cut off.
 */
export const discardRest = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.sync(() => {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    if (source.readableEnded) return
    let dropped = 0
    // After the parser let go of the body (it unpipes on the next tick).
    setImmediate(() => {
      source.on("data", (chunk: Buffer) => {
        dropped += chunk.length
        if (dropped > MAX_DISCARDED_BYTES) source.destroy()
      })
      source.resume()
    })
  })

interface Progress {
  payloadJson: string | undefined
  readonly files: Array<StagedFile>
  total: number
}

/** The instance's limits on one message's files, at most the ceilings above. */
export interface FileLimits {
  readonly files: number
  readonly fileBytes: number
}

/** Writes one file part to `path`, counting and hashing as it goes; fails as soon as a limit is passed. */
const writeFile = (file: Multipart.File, path: string, progress: Progress, limits: FileLimits) =>
  Effect.acquireUseRelease(
    Effect.promise(() => Fs.open(path, "wx")),
    (handle) => {
      const hash = createHash("sha256")
      const head: Array<Uint8Array> = []
      let size = 0
      let headSize = 0
      return file.content.pipe(
        Stream.mapError(fromMultipartError),
        Stream.runForEach((chunk) =>
          Effect.suspend(() => {
            size += chunk.length
            progress.total += chunk.length
            if (size > limits.fileBytes) return Effect.fail(fileTooLarge(limits.fileBytes))
            if (progress.total > MAX_TOTAL_BYTES) return Effect.fail(totalTooLarge())
            hash.update(chunk)
            if (headSize < HEAD_BYTES) {
              head.push(chunk.subarray(0, HEAD_BYTES - headSize))
              headSize += Math.min(chunk.length, HEAD_BYTES - headSize)
            }
            return Effect.promise(() => handle.write(chunk))
          })
        ),
        Effect.map(() => ({ size, hash: hash.digest("hex"), head: Buffer.concat(head) }))
      )
    },
    (handle) => Effect.promise(() => handle.close())
  )

/**
 * Reads a multipart message create as it arrives: `payload_json`, and each
 * `files[n]` streamed to a temporary file (memory holds one chunk at a time,
 * whatever the file's size). The limits are checked on every chunk, so an
 * oversized upload is refused as soon as it passes them. The temporary files
 * are removed when the scope closes. Without `mayAttach`, a file part is
 * refused as it arrives.
 */
export const stageUpload = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>, mayAttach: boolean, limits: FileLimits) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "guildhall-upload-"))),
      (dir) => Effect.promise(() => Fs.rm(dir, { recursive: true, force: true }))
    )
    const progress: Progress = { payloadJson: undefined, files: [], total: 0 }
    yield* parts.pipe(
      Stream.mapError(fromMultipartError),
      Stream.runForEach((part): Effect.Effect<void, UploadError> => {
        if (part._tag === "Field") {
          if (part.key !== "payload_json") return Effect.void
          progress.payloadJson = part.value
          return Effect.void
        }
        // Refused before a byte of the file is read: without ATTACH_FILES, only text may come.
        if (!mayAttach) return Effect.fail(missingPermissions())
        const match = FILE_FIELD.exec(part.key)
        if (match === null) {
          return Effect.fail(invalidField(part.key, "INVALID_FILE_FIELD_NAME", "Files are sent as files[n]"))
        }
        const index = Number(match[1])
        if (index >= limits.files) {
          return Effect.fail(invalidField(part.key, "FILE_INDEX_EXCEEDS_MAXIMUM", `File indexes are 0 to ${limits.files - 1}`))
        }
        const twin = progress.files.find((f) => f.index === index)
        if (twin !== undefined) {
          return Effect.fail(
            twin.fieldName === part.key
              ? invalidField(part.key, "MULTIPLE_FILES_FOR_INDEX_NOT_ALLOWED", "One file per index")
              : invalidField(part.key, "DUPLICATE_FILE_INDEX", `Index ${index} is given twice`)
          )
        }
        const path = Path.join(dir, String(index))
        return Effect.map(writeFile(part, path, progress, limits), (written) => {
          progress.files.push({ index, fieldName: part.key, filename: part.name, path, ...written })
        })
      })
    )
    return { payloadJson: progress.payloadJson, files: progress.files } satisfies StagedUpload
  })
