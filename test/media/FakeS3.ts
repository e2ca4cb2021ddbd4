import { Context, Effect, Layer } from "effect"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** The one bucket and key pair the fake knows. */
export const FAKE_S3 = {
  bucket: "guildhall-media",
  region: "eu-test-1",
  accessKeyId: "GUILDHALLTESTKEY",
  secretAccessKey: "fake/secret+key-for-tests-only"
} as const

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex")
const hmac = (key: Uint8Array | string, data: string) => createHmac("sha256", key).update(data).digest()

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/

/**
 * Checks a request's AWS Signature V4 the way S3 does: the canonical request
 * is rebuilt from what arrived and signed again with the secret. Written apart
 * from src/media/SigV4.ts on purpose, so one mistake cannot hide in both.
 */
const signatureProblem = (request: IncomingMessage, body: Uint8Array): string | undefined => {
  const match = AUTHORIZATION.exec(request.headers.authorization ?? "")
  if (match === null) return "AccessDenied"
  const [, keyId = "", day = "", region = "", signedHeaders = "", signature = ""] = match
  if (keyId !== FAKE_S3.accessKeyId) return "InvalidAccessKeyId"
  const date = String(request.headers["x-amz-date"] ?? "")
  const payloadHash = String(request.headers["x-amz-content-sha256"] ?? "")
  const names = signedHeaders.split(";")
  if (region !== FAKE_S3.region || !date.startsWith(day) || !["host", "x-amz-date", "x-amz-content-sha256"].every((n) => names.includes(n))) {
    return "AuthorizationHeaderMalformed"
  }
  if (payloadHash !== sha256(body)) return "XAmzContentSHA256Mismatch"
  const [path = "", query = ""] = (request.url ?? "").split("?")
  const canonical = [
    request.method,
    path,
    query,
    ...names.map((name) => `${name}:${String(request.headers[name] ?? "").trim()}`),
    "",
    signedHeaders,
    payloadHash
  ].join("\n")
  const scope = `${day}/${region}/s3/aws4_request`
  const toSign = ["AWS4-HMAC-SHA256", date, scope, sha256(canonical)].join("\n")
  const key = hmac(hmac(hmac(hmac(`AWS4${FAKE_S3.secretAccessKey}`, day), region), "s3"), "aws4_request")
  const expected = createHmac("sha256", key).update(toSign).digest()
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? undefined : "SignatureDoesNotMatch"
}

const refuse = (response: ServerResponse, status: number, code: string, method: string | undefined) => {
  response.writeHead(status, { "content-type": "application/xml" })
  response.end(method === "HEAD" ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`)
}

/** An S3-compatible store over real HTTP on loopback: objects in memory, every signature checked. */
export class FakeS3 extends Context.Service<FakeS3, {
  readonly endpoint: string
  readonly objects: ReadonlyMap<string, Uint8Array>
  /** `METHOD key` of every signed request, in order. */
  readonly requests: ReadonlyArray<string>
  /** While on, every request answers 500 InternalError. */
  readonly setOutage: (on: boolean) => void
}>()("test/FakeS3") {
  static readonly layer = Layer.effect(
    FakeS3,
    Effect.gen(function*() {
      const objects = new Map<string, Uint8Array>()
      const requests: Array<string> = []
      let outage = false
      const handle = (request: IncomingMessage, response: ServerResponse, body: Uint8Array) => {
        if (outage) return refuse(response, 500, "InternalError", request.method)
        const problem = signatureProblem(request, body)
        if (problem !== undefined) return refuse(response, 403, problem, request.method)
        const [, bucket, key = ""] = (request.url ?? "").split("?")[0]?.split("/") ?? []
        if (bucket !== FAKE_S3.bucket) return refuse(response, 404, "NoSuchBucket", request.method)
        requests.push(`${request.method} ${key}`)
        if (request.method === "PUT") {
          objects.set(key, body)
          return response.writeHead(200, { etag: `"${sha256(body)}"` }).end()
        }
        // As S3: 204 whether or not the object was there.
        if (request.method === "DELETE") {
          objects.delete(key)
          return response.writeHead(204).end()
        }
        const object = objects.get(key)
        if (object === undefined) return refuse(response, 404, "NoSuchKey", request.method)
        response.writeHead(200, { "content-length": object.length, "content-type": "application/octet-stream" })
        response.end(request.method === "HEAD" ? undefined : object)
      }
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<ReturnType<typeof createServer>>((resolve) => {
            const http = createServer((request, response) => {
              const chunks: Array<Buffer> = []
              request.on("data", (chunk: Buffer) => chunks.push(chunk))
              request.on("end", () => handle(request, response, new Uint8Array(Buffer.concat(chunks))))
            })
            http.listen(0, "127.0.0.1", () => resolve(http))
          })
        ),
        (http) => Effect.promise(() => new Promise<void>((resolve) => http.close(() => resolve())))
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return { endpoint: `http://127.0.0.1:${port}`, objects, requests, setOutage: (on: boolean) => (outage = on) }
    })
  )
}

/** The API's environment for storing media in the fake. */
export const fakeS3Env = (endpoint: string, secretAccessKey: string = FAKE_S3.secretAccessKey): Record<string, string> => ({
  MEDIA_S3_ENDPOINT: endpoint,
  MEDIA_S3_BUCKET: FAKE_S3.bucket,
  MEDIA_S3_REGION: FAKE_S3.region,
  MEDIA_S3_ACCESS_KEY_ID: FAKE_S3.accessKeyId,
  MEDIA_S3_SECRET_ACCESS_KEY: secretAccessKey
})
