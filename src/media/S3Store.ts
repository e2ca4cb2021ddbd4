/**
 * Media on an S3-compatible object store (AWS S3, MinIO, Garage, R2, ...),
 * path-style (`endpoint/bucket/hash`, which every implementation accepts),
 * signed with AWS Signature V4 by hand (SigV4.ts) over `fetch`. No AWS SDK:
 * its S3 client pulls in dozens of packages and megabytes of code for the
 * four calls this store makes (HEAD, PUT, GET, DELETE).
 */
import { Effect, Redacted, Schema } from "effect"
import { createReadStream } from "node:fs"
import { Readable } from "node:stream"
import type { MediaS3Settings } from "../platform/Config.ts"
import { hashOf, MEDIA_HASH } from "./ContentAddress.ts"
import { sha256Hex, signV4, type UnsignedRequest } from "./SigV4.ts"

/** The store refused a request or could not be reached. */
export class ObjectStoreError extends Schema.TaggedError<ObjectStoreError>()("ObjectStoreError", {
  message: Schema.String
}) {}

const REQUEST_TIMEOUT_MILLIS = 10_000
const EMPTY_PAYLOAD_HASH = sha256Hex("")

interface StoreReply {
  readonly status: number
  readonly body: Uint8Array
}

/** The S3 error code of a refusal (`<Code>SignatureDoesNotMatch</Code>`), for the log. */
const errorCodeOf = (reply: StoreReply) => /<Code>([^<]+)<\/Code>/.exec(Buffer.from(reply.body).toString("utf8"))?.[1]

export const s3Store = (settings: MediaS3Settings) => {
  const credentials = {
    accessKeyId: settings.accessKeyId,
    secretAccessKey: Redacted.value(settings.secretAccessKey),
    region: settings.region
  }

  /** A body in memory, or a file streamed from disk (an attachment: never read into memory whole). */
  const send = (method: "HEAD" | "GET" | "PUT" | "DELETE", hash: string, body?: Uint8Array | { readonly path: string; readonly size: number }) =>
    Effect.tryPromise({
      try: async (): Promise<StoreReply> => {
        const url = new URL(`${settings.endpoint}/${settings.bucket}/${hash}`)
        const unsigned: UnsignedRequest = body === undefined
          ? { method, url, headers: {}, payloadHash: EMPTY_PAYLOAD_HASH }
          // The object's name is its SHA-256, which is also the payload hash PUT signs.
          : { method, url, headers: { "content-type": "application/octet-stream" }, payloadHash: hash }
        const headers = signV4(unsigned, credentials, new Date())
        const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MILLIS)
        const response = body === undefined || body instanceof Uint8Array
          ? await fetch(url, { method, headers, body, signal })
          : await fetch(url, {
            method,
            // S3 wants the length up front: no chunked uploads.
            headers: { ...headers, "content-length": String(body.size) },
            body: Readable.toWeb(createReadStream(body.path)),
            duplex: "half",
            signal
          })
        return { status: response.status, body: new Uint8Array(await response.arrayBuffer()) }
      },
      catch: (cause) => new ObjectStoreError({ message: `${method} ${hash} failed: ${String(cause)}` })
    })

  const refused = (method: string, hash: string, reply: StoreReply) =>
    new ObjectStoreError({ message: `${method} ${hash} answered ${reply.status} ${errorCodeOf(reply) ?? ""}`.trimEnd() })

  /** Content-addressed: an object already under its hash is the same bytes, so it is not sent again. */
  const put = Effect.fn("MediaStore.put")(function*(bytes: Uint8Array) {
    const hash = hashOf(bytes)
    const head = yield* send("HEAD", hash)
    if (head.status === 200) return hash
    if (head.status !== 404) return yield* refused("HEAD", hash, head)
    const stored = yield* send("PUT", hash, bytes)
    if (stored.status !== 200) return yield* refused("PUT", hash, stored)
    return hash
  })

  /** `put` of a file whose SHA-256 is `hash`, streamed from disk. */
  const putFile = Effect.fn("MediaStore.putFile")(function*(path: string, hash: string, size: number) {
    const head = yield* send("HEAD", hash)
    if (head.status === 200) return
    if (head.status !== 404) return yield* refused("HEAD", hash, head)
    const stored = yield* send("PUT", hash, { path, size })
    if (stored.status !== 200) return yield* refused("PUT", hash, stored)
  })

  const get = Effect.fn("MediaStore.get")((hash: string) =>
    MEDIA_HASH.test(hash)
      ? Effect.flatMap(send("GET", hash), (reply) => {
        if (reply.status === 200) return Effect.succeed<Uint8Array | undefined>(reply.body)
        return reply.status === 404 ? Effect.succeed(undefined) : Effect.fail(refused("GET", hash, reply))
      })
      : Effect.succeed(undefined))

  /** S3 answers 204 whether or not the object was there; some stores answer 404 when it was not. */
  const remove = Effect.fn("MediaStore.remove")((hash: string) =>
    MEDIA_HASH.test(hash)
      ? Effect.flatMap(send("DELETE", hash), (reply) =>
        reply.status === 204 || reply.status === 200 || reply.status === 404 ? Effect.void : Effect.fail(refused("DELETE", hash, reply)))
      : Effect.void)

  return { put, putFile, get, remove }
}
